"""The companions area (kb/errors/companions.json): torchvision, torchaudio and NumPy beside torch."""
