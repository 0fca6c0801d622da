/* include/tensorbind.h: a C view of a tensorbind tensor, for native code that receives a
 * `_C.Tensor` and wants its memory without going through Python (PyTorch: the headers in torch/csrc).
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

#ifdef __cplusplus
}
#endif

#endif /* TENSORBIND_H */
