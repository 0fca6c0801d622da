"""The C API of include/tensorbind.h (issue 11): a small C extension is compiled against the header
with the system C compiler, imports the table from the capsule `_C._C_API` (`tb_import_api`),
reads tensors through it and makes tensors over its own memory with a deleter. Skipped where no C
compiler or Python headers exist.
"""

import gc
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

import _C

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include "tensorbind.h"

static const tb_c_api *api;
static long freed;

static void release(void *ctx) {
    free(ctx);
    __atomic_add_fetch(&freed, 1, __ATOMIC_SEQ_CST);
}

/* Sum of a float64 tensor of any layout, read through the view. */
static PyObject *sum(PyObject *self, PyObject *obj) {
    tb_tensor_view v;
    if (!api->is_tensor(obj) || api->view_get(obj, &v) != 0) {
        PyErr_SetString(PyExc_TypeError, "sum: expected a _C.Tensor");
        return NULL;
    }
    if (v.dtype != TB_FLOAT64 || v.itemsize != 8) {
        PyErr_SetString(PyExc_TypeError, "sum: expected float64");
        return NULL;
    }
    int64_t idx[16] = {0};
    uint64_t total = 1;
    for (int64_t d = 0; d < v.ndim; d++) total *= v.sizes[d];
    double s = 0;
    for (uint64_t n = 0; n < total; n++) {
        int64_t off = 0;
        for (int64_t d = 0; d < v.ndim; d++) off += idx[d] * v.strides[d];
        s += ((double *)v.data)[off];
        for (int64_t d = v.ndim - 1; d >= 0; d--) {
            if ((uint64_t)++idx[d] < v.sizes[d]) break;
            idx[d] = 0;
        }
    }
    return PyFloat_FromDouble(s);
}

/* Write `x` into element 0 of a tensor of any dtype that is float64. */
static PyObject *poke(PyObject *self, PyObject *args) {
    PyObject *obj; double x;
    if (!PyArg_ParseTuple(args, "Od", &obj, &x)) return NULL;
    tb_tensor_view v;
    if (api->view_get(obj, &v) != 0 || v.dtype != TB_FLOAT64) {
        PyErr_SetString(PyExc_TypeError, "poke: expected a float64 _C.Tensor");
        return NULL;
    }
    ((double *)v.data)[0] = x;
    Py_RETURN_NONE;
}

/* A 2 x n float64 tensor over malloc'd memory, column-major (strides 1, 2): value i*0.5 at
 * flat position i. `dtype` lets the test pass a bad one. */
static PyObject *make(PyObject *self, PyObject *args) {
    long n; int dtype = TB_FLOAT64;
    if (!PyArg_ParseTuple(args, "l|i", &n, &dtype)) return NULL;
    double *d = malloc(sizeof(double) * 2 * (n > 0 ? n : 1));
    for (long i = 0; i < 2 * n; i++) d[i] = i * 0.5;
    int64_t sizes[2] = {2, n};
    int64_t strides[2] = {1, 2};
    return (PyObject *)api->from_external(d, dtype, 2, sizes, strides, release, d);
}

static PyObject *zeros(PyObject *self, PyObject *arg) {
    int64_t sizes[1] = {PyLong_AsLongLong(arg)};
    if (sizes[0] == -1 && PyErr_Occurred()) return NULL;
    return (PyObject *)api->zeros(TB_INT32, 1, sizes);
}

static PyObject *nfreed(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(__atomic_load_n(&freed, __ATOMIC_SEQ_CST));
}

static PyObject *version(PyObject *self, PyObject *unused) {
    return Py_BuildValue("(II)", api->version, api->size);
}

static PyMethodDef methods[] = {
    {"sum", sum, METH_O, NULL},
    {"poke", poke, METH_VARARGS, NULL},
    {"make", make, METH_VARARGS, NULL},
    {"zeros", zeros, METH_O, NULL},
    {"nfreed", nfreed, METH_NOARGS, NULL},
    {"version", version, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "tb_capi_test", NULL, -1, methods};

PyMODINIT_FUNC PyInit_tb_capi_test(void) {
    api = tb_import_api();
    if (api == NULL) return NULL;
    return PyModule_Create(&def);
}
"""


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    cc = shutil.which(os.environ.get("CC", "cc"))
    include = sysconfig.get_paths()["include"]
    if cc is None or not os.path.exists(os.path.join(include, "Python.h")):
        pytest.skip("no C compiler or Python headers")
    d = tmp_path_factory.mktemp("capi")
    src = d / "tb_capi_test.c"
    src.write_text(SOURCE)
    so = d / ("tb_capi_test" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run(
        [cc, "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-I", include,
         "-I", os.path.join(REPO, "include"), str(src), "-o", str(so)],
        check=True,
    )
    spec = importlib.util.spec_from_file_location("tb_capi_test", so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules["tb_capi_test"] = mod
    return mod


def test_table_is_versioned(ext):
    version, size = ext.version()
    assert version == 1 and size == 40  # two uint32 and four function pointers


def test_reads_tensors_of_any_layout(ext):
    t = _C.arange(12, dtype=_C.float64).reshape(3, 4)
    assert ext.sum(t) == 66.0
    assert ext.sum(t.transpose(0, 1)[1:, ::2]) == sum(t.transpose(0, 1)[1:, ::2].flatten().tolist())
    assert ext.sum(_C.tensor(2.5, dtype=_C.float64)) == 2.5
    with pytest.raises(TypeError, match="expected a _C.Tensor"):
        ext.sum([1.0])
    with pytest.raises(TypeError, match="expected float64"):
        ext.sum(_C.ones(2))
    v = t[1]
    ext.poke(v, -7.0)
    assert t[1, 0].item() == -7.0


def test_tensor_over_external_memory_releases_once(ext):
    gc.collect()
    before, t0, e0 = ext.nfreed(), _C._live_tensors(), _C._live_external()
    t = ext.make(3)
    assert t.shape == (2, 3) and t.stride() == (1, 2) and t.dtype == _C.float64
    assert t.tolist() == [[0.0, 1.0, 2.0], [0.5, 1.5, 2.5]]
    col = t[:, 2]
    t[0, 0] = 9.0  # written through to the extension's memory
    assert ext.sum(t) == 9.0 + 7.5
    del t
    gc.collect()
    assert ext.nfreed() == before and col.tolist() == [2.0, 2.5]
    del col
    gc.collect()
    assert ext.nfreed() == before + 1
    assert (_C._live_tensors(), _C._live_external()) == (t0, e0)


def test_failed_creation_still_runs_the_deleter(ext):
    before = ext.nfreed()
    with pytest.raises(ValueError, match="not a tb_dtype"):
        ext.make(2, 99)
    assert ext.nfreed() == before + 1
    empty = ext.make(0)
    assert empty.shape == (2, 0)
    del empty
    gc.collect()
    assert ext.nfreed() == before + 2


def test_zeros_makes_new_tensors(ext):
    z = ext.zeros(4)
    assert isinstance(z, _C.Tensor) and z.dtype == _C.int32 and z.tolist() == [0, 0, 0, 0]
    with pytest.raises(RuntimeError, match="negative dimension"):
        ext.zeros(-1)
