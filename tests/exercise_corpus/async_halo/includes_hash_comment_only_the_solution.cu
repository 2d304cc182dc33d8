#/*
*/include "/work/main/kernels/async_halo.cu"
