"""emb_torch: emb as a PyTorch extension (docs/pytorch.md)."""
