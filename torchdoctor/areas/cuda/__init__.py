"""The CUDA area (kb/errors/cuda.json): the driver, the GPU's architecture, GPU visibility."""
