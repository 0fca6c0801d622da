/* include/tensorbind.h: tensorbind's C API, for other extensions (PyTorch: the headers in
 * torch/csrc; numpy: its C API capsule) — a C view of a `_C.Tensor`, and a versioned table of
 * functions `_C` publishes as the capsule `_C._C_API`, as numpy publishes `_ARRAY_API`.
 *
 * The table (with the GIL held; Python.h included before this header gives `tb_import_api`):
 *     const tb_c_api *api = tb_import_api();          // NULL with ImportError set on failure
 *     if (api->is_tensor(obj)) { tb_tensor_view v; api->view_get(obj, &v); ... }
 *     PyObject *t = api->from_external(data, TB_FLOAT32, 2, sizes, strides, my_free, ctx);
 * `version` is TB_C_API_VERSION of the `_C` that filled the table: entries are only ever added
 * at the end (with a version bump), so code built against version N works with any `_C` whose
 * version is >= N; `tb_import_api` refuses an older table.
 *
 * Usage, with the GIL held and `obj` a live `_C.Tensor`:
 *     tb_tensor_view v;
 *     if (tb_tensor_view_get(obj, &v) != 0) { ... not a tensor ... }
 *     // v.data[offset] where offset = sum(index[i] * v.strides[i]) elements of v.dtype
 * The view borrows from `obj`: it is valid while `obj` is alive and not resized (`out=`).
 * The layout is checked against the Rust definition at build time (src/bindings/c_view.rs). */
#ifndef TENSORBIND_H
#define TENSORBIND_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types; the values are the order of src/core/dtype.rs's `DType`. */
typedef enum tb_dtype {
    TB_BOOL = 0,
    TB_UINT8 = 1,
    TB_INT8 = 2,
    TB_INT16 = 3,
    TB_INT32 = 4,
    TB_INT64 = 5,
    TB_FLOAT32 = 6,
    TB_FLOAT64 = 7
} tb_dtype;

typedef struct tb_tensor_view {
    void *data;             /* first element (storage base + offset), borrowed */
    const uint64_t *sizes;  /* ndim sizes, borrowed from the tensor */
    const int64_t *strides; /* ndim strides in elements (may be 0 or negative), borrowed */
    int64_t ndim;
    int32_t dtype;          /* a tb_dtype */
    int32_t itemsize;       /* bytes per element */
} tb_tensor_view;

/* Fill `out` from `obj` (a PyObject*, passed as void* so this header needs no Python.h).
 * Returns 0 on success, -1 if `obj` is not a `_C.Tensor` (no Python error is set). */
int tb_tensor_view_get(void *obj, tb_tensor_view *out);

/* Layout of the struct, as compiled by C; Rust asserts it equals its own at build time. */
extern const uint64_t tb_tensor_view_layout[3]; /* sizeof, offsetof(ndim), offsetof(dtype) */

/* ---- the C API table (capsule `_C._C_API`) ------------------------------------------------ */

#define TB_C_API_VERSION 1
#define TB_C_API_CAPSULE "_C._C_API"

/* Releases external memory: called exactly once with the `ctx` given to `from_external`, when
 * the last tensor or view over the memory dies, on any thread and without the GIL (take it
 * yourself, with PyGILState_Ensure, to touch Python objects). */
typedef void (*tb_deleter)(void *ctx);

typedef struct tb_c_api {
    uint32_t version;   /* TB_C_API_VERSION of the `_C` that filled the table */
    uint32_t size;      /* sizeof(tb_c_api) as `_C` was compiled */
    /* 1 if `obj` (a PyObject*) is a `_C.Tensor` or a subclass instance, else 0. */
    int (*is_tensor)(void *obj);
    /* Borrow data pointer, dtype, shape and strides: `tb_tensor_view_get`. */
    int (*view_get)(void *obj, tb_tensor_view *out);
    /* A new `_C.Tensor` (a new reference) over `data`: `ndim` sizes, strides in elements (none
     * negative; NULL for row-major), elements of `dtype` (a tb_dtype) aligned to their size.
     * `deleter(ctx)` runs once when the last tensor or view over the memory dies — also when
     * this call fails, which returns NULL with a Python exception set. */
    void *(*from_external)(void *data, int32_t dtype, int64_t ndim, const int64_t *sizes,
                           const int64_t *strides, tb_deleter deleter, void *ctx);
    /* A new zero-filled contiguous `_C.Tensor` (a new reference), or NULL with an exception. */
    void *(*zeros)(int32_t dtype, int64_t ndim, const int64_t *sizes);
} tb_c_api;

extern const uint64_t tb_c_api_layout[2]; /* sizeof, offsetof(zeros) */

#ifdef Py_PYTHON_H
/* The table, imported from `_C` (NULL with an exception set if `_C` cannot be imported or is
 * older than this header). Call with the GIL held; the table lives as long as the process. */
static inline const tb_c_api *tb_import_api(void) {
    const tb_c_api *api = (const tb_c_api *)PyCapsule_Import(TB_C_API_CAPSULE, 0);
    if (api != NULL && api->version < TB_C_API_VERSION) {
        PyErr_Format(PyExc_ImportError, "_C's C API is version %u; this extension needs %d",
                     (unsigned)api->version, TB_C_API_VERSION);
        return NULL;
    }
    return api;
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* TENSORBIND_H */
