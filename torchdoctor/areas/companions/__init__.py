"""The companions area (kb/errors/companions.json): torchvision, torchaudio, NumPy, and the libraries whose versions must fit torch and each other (transformers, accelerate)."""
