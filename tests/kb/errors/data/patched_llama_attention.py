"""A project that patches LlamaAttention.forward with a function written for transformers 4.37 (no
cache_position, no **kwargs), then runs a one-layer Llama: fails under 4.38+, runs under 4.37."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama import modeling_llama as ml


def patch(cls):
    orig = cls.forward

    # written for transformers 4.37: the attention's keywords of that release, and no **kwargs
    def llama_attention_forward_437(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
                    output_attentions=False, use_cache=False):
        return orig(self, hidden_states, attention_mask=attention_mask, position_ids=position_ids,
                    past_key_value=past_key_value, output_attentions=output_attentions, use_cache=use_cache)
    cls.forward = llama_attention_forward_437


for name in ("LlamaAttention", "LlamaSdpaAttention"):
    if hasattr(ml, name):
        patch(getattr(ml, name))
config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                     num_attention_heads=2, num_key_value_heads=2)
model = LlamaForCausalLM(config)
print("logits", tuple(model(torch.tensor([[1, 2, 3]])).logits.shape))
