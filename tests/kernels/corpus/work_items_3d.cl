/*
 * Work-item functions in a 3-D launch: every work-item writes what each of
 * them returns, at its linear global index, for the host to check.
 */

#define FIELDS 19

__kernel void work_item_ids(__global uint *out)
{
    size_t linear = get_global_id(0) +
                    get_global_size(0) *
                        (get_global_id(1) + get_global_size(1) * get_global_id(2));
    __global uint *record = out + linear * FIELDS;
    for (uint d = 0; d < 3; ++d) {
        record[0 + d] = (uint)get_global_id(d);
        record[3 + d] = (uint)get_local_id(d);
        record[6 + d] = (uint)get_group_id(d);
        record[9 + d] = (uint)get_num_groups(d);
        record[12 + d] = (uint)get_global_size(d);
        record[15 + d] = (uint)get_local_size(d);
    }
    record[18] = get_work_dim();
}
