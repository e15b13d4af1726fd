/* OpenCL 2.0 work-item functions some kernels use with uniform work-groups:
 * the CUDA backend provides them (kiln-compare checks them against PoCL). */
__kernel void linear_ids(__global uint *out)
{
    size_t g = get_global_linear_id();
    out[g] = (uint)(get_local_linear_id() + get_enqueued_local_size(0));
}
