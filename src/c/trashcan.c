/* src/c/trashcan.c: CPython's trashcan for our deallocators, a C shim because the mechanism is
 * the macro pair Py_TRASHCAN_BEGIN / Py_TRASHCAN_END, which pyo3-ffi does not provide (and whose
 * expansion changes between CPython versions: compiled against the headers of the interpreter
 * being built for, by build.rs).
 *
 * A deallocator that frees objects which free objects ... recurses once per link; the trashcan
 * bounds that: past a nesting limit, CPython parks the object (which must be untracked, with a
 * zero refcount) and calls its tp_dealloc again once the outer deallocation has unwound. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Run body(op) inside the trashcan of the deallocator `dealloc` (the tp_dealloc of op's type;
 * the trashcan only engages when Py_TYPE(op)->tp_dealloc == dealloc, as CPython's own types do
 * so that a subclass's deallocator and its base's do not both count one object). When the
 * nesting is too deep, body is not called now: op is deposited, and CPython calls
 * Py_TYPE(op)->tp_dealloc(op) again later. op must be untracked by the GC. */
void tensorbind_trashcan(PyObject *op, destructor dealloc, void (*body)(PyObject *))
{
    Py_TRASHCAN_BEGIN(op, dealloc)
    body(op);
    Py_TRASHCAN_END
}
