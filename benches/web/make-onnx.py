#!/usr/bin/env python3
"""The three tiny ONNX models of the web host benchmark (benches/web/host.html), for
onnxruntime-web: Cast float32 -> int32, Add float32, Transpose (2-D), each over
dynamic shapes. Made with the `onnx` package (pip install onnx); the files are
committed, so the benchmark needs no Python.

    python3 benches/web/make-onnx.py
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def save(name, node, inputs, out_type):
    dims = ["n", "m"]
    ins = [helper.make_tensor_value_info(i, TensorProto.FLOAT, dims) for i in inputs]
    out = helper.make_tensor_value_info("y", out_type, dims[::-1] if name == "transpose" else dims)
    graph = helper.make_graph([node], name, ins, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, f"{name}.onnx"))


def main():
    os.makedirs(OUT, exist_ok=True)
    save("cast", helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT32), ["x"], TensorProto.INT32)
    save("add", helper.make_node("Add", ["x", "z"], ["y"]), ["x", "z"], TensorProto.FLOAT)
    save("transpose", helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0]), ["x"], TensorProto.FLOAT)


if __name__ == "__main__":
    main()
