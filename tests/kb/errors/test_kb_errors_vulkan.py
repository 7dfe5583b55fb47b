"""A renderer beside torch without a working Vulkan driver: SAPIEN's, the Vulkan loader's and
vulkaninfo's wordings, built for the test in the formats they print; none is an evaluation text."""

import pytest

from hook_facts import top

ID = "vulkan-driver-missing"


@pytest.mark.parametrize("text", [
    "[svulkan2] [error] Some required Vulkan extension is not present. You may not use the renderer to render, "
    "however, CPU resources will be still available.",
    "[svulkan2] [error] Your GPU driver does not support Vulkan.\n[svulkan2] [error] Failed to create renderer with "
    "error:\nvk::createInstanceUnique: ErrorIncompatibleDriver",
    "  warn(\nUserWarning: Failed to find Vulkan ICD file. This is probably due to an incorrect or partial "
    "installation of the NVIDIA driver.",
    "    renderer = sapien.VulkanRenderer()\nRuntimeError: vk::Instance::enumeratePhysicalDevices: "
    "ErrorInitializationFailed",
    "ERROR at ./vulkaninfo/vulkaninfo.h:573:vkCreateInstance failed with ERROR_INCOMPATIBLE_DRIVER",
    "    import sapien\nImportError: libvulkan.so.1: cannot open shared object file: No such file or directory",
])
def test_a_renderer_without_a_vulkan_driver_is_read(text):
    m = top(text)
    assert m is not None and m.id == ID, m and m.id


@pytest.mark.parametrize("text", [
    # a working Vulkan device, and another library's missing file
    "ggml_vulkan: Found 1 Vulkan devices:\nggml_vulkan: 0 = NVIDIA GeForce RTX 3090 (NVIDIA) | uma: 0 | fp16: 1",
    "ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
    "vkCreateInstance succeeded; 1 physical device",
])
def test_working_vulkan_and_other_libraries_are_not_read(text):
    m = top(text)
    assert m is None or m.id != ID
