/* Prints nx_array.h's answer codes in enum order and its limits, for tests/c_header.rs. */
#include <stdio.h>

#include "nx_array.h"

int main(void)
{
    printf("%d %d %d %d %d %d %d %d %d %d\n", NX_DONE, NX_DECLINED, NX_WRONG_DTYPE, NX_DEAD_BUFFER, NX_OFF_HOST,
           NX_HELD_EXCLUSIVE, NX_READ_ONLY, NX_REPEATED_ELEMENTS, NX_OVERLAPPING, NX_SHAPE_MISMATCH);
    printf("%d %d %d\n", NX_MAX_OPERANDS, NX_MAX_RANK, (int)sizeof(nx_operand));
    return 0;
}
