"""The builtin model's graph rebuilt from its weights with onnxruntime's fused transformer operators.

The pinned file is a general export of all-MiniLM-L6-v2: every layer's attention is about thirty
small operators (reshapes, transposes, scaling, masking, a NaN guard after the softmax), and the
GELU five more. Run one text at a time, those operators cost about as much as the matrix products.
`rebuild(folded, target)` writes the same network (same weights, same arithmetic up to float
rounding: cosine 1.0000 to the exported graph on chunk texts) as a graph of onnxruntime's
`com.microsoft` operators:

    EmbedLayerNormalization (word + position + segment embeddings, layer norm, mask lengths)
    6 x [ Attention (packed q/k/v projection, 12 heads, the mask as sequence lengths)
          MatMul -> Add (bias) -> Add (residual) -> LayerNormalization
          MatMul -> BiasGelu -> MatMul -> Add -> Add -> LayerNormalization ]

The session must be created with onnxruntime's `SkipLayerNormFusion` disabled (`SESSION_OFF`):
its fused operator is about 4x slower than the three it replaces on the CPU (onnxruntime 1.32,
128 x 384 floats: 315 against 75 microseconds); the bias additions are folded into the
quantised products by onnxruntime's own fusion.

The matrix products of that graph (`MatMul`, and the projection inside `Attention`) are what
`quantize` then quantises to int8. Inputs and output keep the exported names and shapes
(`input_ids`, `attention_mask`, `token_type_ids` as int64 [batch, seq]; `last_hidden_state`
float32 [batch, seq, 384]); padding must be on the right (the mask becomes sequence lengths).
Runs in the derivation's child process only (it reads the whole float32 graph).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:  # numpy at its first use: a server that embeds nothing never maps it (`service.numpy_lazy`)
    from service.numpy_lazy import np

MS = "com.microsoft"
LAYERS = 6
HEADS = 12
EPSILON = 1e-12
PREFIX = "inner."  # the exported weights' name prefix
SESSION_OFF = ["SkipLayerNormFusion"]  # onnxruntime graph optimisers to disable (see the module doc)


class _Weights:
    """The folded graph's initialisers, and its linear layers found by their bias names."""

    def __init__(self, model: Any) -> None:
        from onnx import numpy_helper

        self.arrays = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
        self.producer = {out: node for node in model.graph.node for out in node.output}
        self.adds = {name: node for node in model.graph.node if node.op_type == "Add" for name in node.input}

    def __getitem__(self, name: str) -> Any:
        return self.arrays[PREFIX + name]

    def linear(self, bias: str) -> tuple[Any, Any]:
        """(weight [in, out], bias) of the layer whose bias initialiser is `bias`: the `Add` of the
        bias takes the output of a `MatMul` by a constant weight."""
        add = self.adds[PREFIX + bias]
        (other,) = [i for i in add.input if i != PREFIX + bias]
        matmul = self.producer[other]
        if matmul.op_type != "MatMul":
            raise ValueError(f"{bias}: expected a MatMul before the bias, found {matmul.op_type}")
        (weight,) = [i for i in matmul.input if i in self.arrays]
        return self.arrays[weight], self.arrays[PREFIX + bias]


def rebuild(folded: Path, target: Path) -> None:
    """Write the fused graph of the weight-folded export `folded` to `target`."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = _Weights(onnx.load(str(folded)))
    inits: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, array: Any) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        domain = "" if op in ("Add", "Cast", "LayerNormalization", "MatMul") else MS
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attrs))
        return output

    def add_norm(value: str, bias: str, residual: str, norm: list[str], out: str) -> str:
        """LayerNormalization(value + bias + residual): three plain operators rather than
        `SkipLayerNormalization`, which onnxruntime 1.32 runs about 4x slower on the CPU."""
        biased = node("Add", [value, bias], out + "_biased")
        return node(
            "LayerNormalization", [node("Add", [biased, residual], out + "_sum"), *norm], out, axis=-1, epsilon=EPSILON
        )

    ids = node("Cast", ["input_ids"], "ids32", to=TensorProto.INT32)
    segments = node("Cast", ["token_type_ids"], "segments32", to=TensorProto.INT32)
    mask = node("Cast", ["attention_mask"], "mask32", to=TensorProto.INT32)
    nodes.append(
        helper.make_node(
            "EmbedLayerNormalization",
            [
                ids,
                segments,
                const("word", w["embeddings.word_embeddings.weight"]),
                const("position", w["embeddings.position_embeddings.weight"]),
                const("segment", w["embeddings.token_type_embeddings.weight"]),
                const("embed_gamma", w["embeddings.LayerNorm.weight"]),
                const("embed_beta", w["embeddings.LayerNorm.bias"]),
                mask,
            ],
            ["x0", "lengths"],
            domain=MS,
            epsilon=EPSILON,
        )
    )
    x = "x0"
    for i in range(LAYERS):
        layer = f"encoder.layer.{i}."
        (wq, bq), (wk, bk), (wv, bv) = (w.linear(f"{layer}attention.self.{k}.bias") for k in ("query", "key", "value"))
        wo, bo = w.linear(layer + "attention.output.dense.bias")
        w1, b1 = w.linear(layer + "intermediate.dense.bias")
        w2, b2 = w.linear(layer + "output.dense.bias")
        qkv = const(f"qkv_w{i}", np.concatenate([wq, wk, wv], axis=1))
        attended = node(
            "Attention",
            [x, qkv, const(f"qkv_b{i}", np.concatenate([bq, bk, bv])), "lengths"],
            f"att{i}",
            num_heads=HEADS,
        )
        projected = node("MatMul", [attended, const(f"out_w{i}", wo)], f"att_out{i}")
        norm1 = [
            const(f"ln1_g{i}", w[layer + "attention.output.LayerNorm.weight"]),
            const(f"ln1_b{i}", w[layer + "attention.output.LayerNorm.bias"]),
        ]
        h = add_norm(projected, const(f"out_b{i}", bo), x, norm1, f"h{i}")
        up = node("MatMul", [h, const(f"up_w{i}", w1)], f"up{i}")
        gelu = node("BiasGelu", [up, const(f"up_b{i}", b1)], f"gelu{i}")
        down = node("MatMul", [gelu, const(f"down_w{i}", w2)], f"down{i}")
        norm2 = [
            const(f"ln2_g{i}", w[layer + "output.LayerNorm.weight"]),
            const(f"ln2_b{i}", w[layer + "output.LayerNorm.bias"]),
        ]
        out = "last_hidden_state" if i == LAYERS - 1 else f"x{i + 1}"
        x = add_norm(down, const(f"down_b{i}", b2), h, norm2, out)
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", 384])]
    graph = helper.make_graph(nodes, "all-MiniLM-L6-v2", inputs, outputs, inits)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)], producer_name="vaultgate"
    )
    model.ir_version = 8
    onnx.save(model, str(target))
