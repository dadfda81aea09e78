"""A plain NumPy interpreter of the ONNX operators `runner export` writes, from the ONNX operator
specification (opset 13): slow, small, and sharing no code with the runner or with OpenCV. It
checks the numbers of models OpenCV cannot run, and tells which side is wrong when the two
disagree.

    outputs = run(onnx.load(path), {"pixels": batch})   # {name: array}
"""
import math

import numpy as np
from onnx import numpy_helper


def _attrs(node):
    out = {}
    for a in node.attribute:
        if a.type == a.FLOAT:
            out[a.name] = a.f
        elif a.type == a.INT:
            out[a.name] = a.i
        elif a.type == a.INTS:
            out[a.name] = list(a.ints)
        else:
            raise NotImplementedError(f"attribute {a.name} of type {a.type}")
    return out


def _windows(x, kernel, strides, dilations=(1, 1)):
    """(N, C, H, W) -> (N, C, OH, OW, kh, kw) views of every window (x already padded)."""
    n, c, h, w = x.shape
    kh, kw = kernel
    eh, ew = (kh - 1) * dilations[0] + 1, (kw - 1) * dilations[1] + 1
    oh, ow = (h - eh) // strides[0] + 1, (w - ew) // strides[1] + 1
    out = np.empty((n, c, oh, ow, kh, kw), x.dtype)
    for i in range(kh):
        for j in range(kw):
            r, s = i * dilations[0], j * dilations[1]
            out[..., i, j] = x[:, :, r:r + strides[0] * oh:strides[0], s:s + strides[1] * ow:strides[1]]
    return out


def _pad(x, pads, value=0.0):
    top, left, bottom, right = pads
    return np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=value)


def _conv(x, w, b, a):
    groups = a.get("group", 1)
    x = _pad(x, a.get("pads", [0, 0, 0, 0]))
    win = _windows(x, a["kernel_shape"], a.get("strides", [1, 1]), a.get("dilations", [1, 1]))
    n, c, oh, ow = win.shape[:4]
    out_channels, per_group = w.shape[0], c // groups
    y = np.empty((n, out_channels, oh, ow), np.float64)
    step = out_channels // groups
    for g in range(groups):
        part = win[:, g * per_group:(g + 1) * per_group].astype(np.float64)
        y[:, g * step:(g + 1) * step] = np.einsum("ncxykl,ockl->noxy", part,
                                                  w[g * step:(g + 1) * step].astype(np.float64))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def _normalize(x, axes, eps):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x64 - mean) / np.sqrt(var + eps)


def _op(node, ins, a):
    t = node.op_type
    x = ins[0] if ins else None
    if t == "Identity":
        return x
    if t in ("Add", "Sub", "Mul", "Div"):
        return {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[t](x, ins[1])
    if t == "Relu":
        return np.maximum(x, 0)
    if t == "LeakyRelu":
        return np.where(x >= 0, x, x * a.get("alpha", 0.01))
    if t == "Sigmoid":
        return 1 / (1 + np.exp(-x.astype(np.float64)))
    if t == "Tanh":
        return np.tanh(x)
    if t == "Erf":
        return np.vectorize(math.erf)(x.astype(np.float64))
    if t == "HardSigmoid":
        return np.clip(x * a.get("alpha", 0.2) + a.get("beta", 0.5), 0, 1)
    if t == "Sqrt":
        return np.sqrt(x)
    if t == "Conv":
        return _conv(x, ins[1], ins[2] if len(ins) > 2 else None, a)
    if t in ("MaxPool", "AveragePool"):
        if t == "AveragePool" and a.get("count_include_pad", 0) == 0 and any(a.get("pads", [0])):
            raise NotImplementedError("AveragePool excluding padding")
        fill = -np.inf if t == "MaxPool" else 0.0
        win = _windows(_pad(x, a.get("pads", [0, 0, 0, 0]), fill), a["kernel_shape"],
                       a.get("strides", [1, 1]))
        return win.max(axis=(4, 5)) if t == "MaxPool" else win.astype(np.float64).mean(axis=(4, 5))
    if t == "GlobalAveragePool":
        return x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    if t == "Pad":
        p = ins[1]
        return np.pad(x, list(zip(p[:x.ndim], p[x.ndim:])))
    if t == "Flatten":
        axis = a.get("axis", 1)
        return x.reshape(int(np.prod(x.shape[:axis])), -1)
    if t == "Gemm":
        w = ins[1].T if a.get("transB", 0) else ins[1]
        y = x.astype(np.float64) @ w.astype(np.float64)
        return y + ins[2] if len(ins) > 2 else y
    if t == "MatMul":
        return np.matmul(x.astype(np.float64), ins[1].astype(np.float64))
    if t == "BatchNormalization":
        scale, bias, mean, var = (v.reshape(1, -1, 1, 1) for v in ins[1:5])
        return (x - mean) / np.sqrt(var.astype(np.float64) + a.get("epsilon", 1e-5)) * scale + bias
    if t == "InstanceNormalization":
        shape = (1, -1) + (1,) * (x.ndim - 2)
        y = _normalize(x, tuple(range(2, x.ndim)), a.get("epsilon", 1e-5))
        return y * ins[1].reshape(shape) + ins[2].reshape(shape)
    if t == "Reshape":
        shape = [x.shape[i] if d == 0 else int(d) for i, d in enumerate(ins[1])]
        return x.reshape(shape)
    if t == "Transpose":
        return np.transpose(x, a["perm"])
    if t == "Concat":
        return np.concatenate(ins, axis=a["axis"])
    if t == "Gather":
        return np.take(x, ins[1], axis=a.get("axis", 0))
    if t == "ReduceMean":
        return x.astype(np.float64).mean(axis=tuple(a["axes"]), keepdims=bool(a.get("keepdims", 1)))
    if t == "Softmax":
        axis = a.get("axis", -1)
        e = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
    if t == "Shape":
        return np.array(x.shape, np.int64)
    if t == "Slice":
        return x[int(ins[1][0]):int(ins[2][0])]
    if t == "Expand":
        return x * np.ones([int(d) for d in ins[1]], x.dtype)
    raise NotImplementedError(f"operator {t}")


def run(model, inputs):
    """The graph's outputs for `inputs` ({name: array}); every value computed in float64 where
    it matters and kept as float32 between operators, as a float32 runtime keeps it."""
    values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    values.update(inputs)
    for node in model.graph.node:
        y = _op(node, [values[i] for i in node.input], _attrs(node))
        if isinstance(y, np.ndarray) and y.dtype == np.float64:
            y = y.astype(np.float32)
        values[node.output[0]] = y
    return {o.name: values[o.name] for o in model.graph.output}
