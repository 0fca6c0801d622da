/* src/c/layout.c: compiled by build.rs (cc). Exposes the C compiler's view of
 * include/tensorbind.h's layout so the Rust side can check it matches its own definition. */
#include <stddef.h>
#include "tensorbind.h"

_Static_assert(sizeof(void *) == 8, "tensorbind supports 64-bit targets only");

const uint64_t tb_tensor_view_layout[3] = {
    sizeof(tb_tensor_view),
    offsetof(tb_tensor_view, ndim),
    offsetof(tb_tensor_view, dtype),
};

const uint64_t tb_c_api_layout[2] = {
    sizeof(tb_c_api),
    offsetof(tb_c_api, zeros),
};
