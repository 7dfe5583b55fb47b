"""The native-library area (kb/errors/native_libs.json): DLLs and shared libraries beside torch, compiled extensions."""
