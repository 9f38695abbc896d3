"""Every Chinese text of ours reads as Chinese: the rule, report, device and training texts in
resources/ (the "zh" of each entry, "display_name_zh") carry no English word outside a list of
technical terms and names. Words are those a reader takes for English prose: four letters or more,
lower-case, capitalised or upper-case; code is not prose (a span in backticks, a placeholder, an
identifier, a call, an option, an assignment), and neither are ONNX's operator names. The same
rule as the GUI's scan of every dock, menu and report (tests/ui/tst_hub.cpp)."""
import glob
import json
import os
import re
import sys
import unittest

import onnx.defs

SOURCE = os.environ.get("MSA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))

ALLOWED = {
    # products, formats and units
    "ONNX", "Runtime", "Ascend", "Graphviz", "msadvisor", "FLOP", "NCHW", "NHWC", "Roofline", "roofline", "JSON",
    "CANN", "HCCL", "HCCS", "RDMA", "AIPP", "AMCT", "Atlas", "CUDA", "Python", "Megatron", "torchair", "msprof",
    "torch", "Llama", "Transformer", "Attention", "GELU", "Swish", "aclnn", "Advisor", "BERT", "GEMM", "NUMA", "NVIDIA",
    "Netron", "Kineto", "sglang", "trtexec", "Trace", "Graph",  # CUDA Graph
    "Focus",  # YOLOv5's Focus layer
    # the AI Core's units and pipes, as CANN's Chinese documentation names them
    "Cube", "Vector", "Core", "Cores", "Scalar", "cube", "vector", "scalar", "fixpipe",
    # data types
    "float", "double", "bool", "string",
    # terms of art Chinese engineering texts keep
    "batch", "loss", "trace", "profiler", "pass", "token", "rank", "opset", "eager", "autograd", "hook",
    "embedding", "softmax", "sigmoid", "benchmark",
    # PyTorch's literals, APIs and operators
    "True", "False", "autocast", "nonzero", "unique", "broadcast", "loader", "item",
    # msprof's column names, quoted as it prints them
    "Wait", "Time", "Task", "Duration", "State",
}

CODE = re.compile(r"`[^`]*`|\{[a-z_0-9]+\}|\S+\.py\(\d+\): \w+")
TOKEN = re.compile(r"(?<![-\w])[A-Za-z][A-Za-z0-9_./:=()\[\]\-]*")
WORD = re.compile(r"^([a-z]{4,}|[A-Z][a-z]{3,}|[A-Z]{4,})$")


def chinese_texts():
    """(file, key path, text) for each Chinese string under resources/."""
    out = []

    def walk(node, path, chinese, name):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, path + [key], chinese or key == "zh" or key.endswith("_zh"), name)
        elif isinstance(node, list):
            for value in node:
                walk(value, path, chinese, name)
        elif isinstance(node, str) and chinese:
            out.append((name, ".".join(path), node))

    for name in sorted(glob.glob(os.path.join(SOURCE, "resources", "**", "*.json"), recursive=True)):
        with open(name, encoding="utf-8") as f:
            walk(json.load(f), [], False, os.path.relpath(name, SOURCE))
    return out


def english_words(text, allowed):
    return [t for t in TOKEN.findall(CODE.sub(" ", text)) if WORD.match(t) and t not in allowed]


class ChineseTexts(unittest.TestCase):
    def test_no_english_in_chinese_texts(self):
        allowed = ALLOWED | {s.name for s in onnx.defs.get_all_schemas_with_history()}
        texts = chinese_texts()
        self.assertGreater(len(texts), 500)  # the catalogue is found
        leaks = ["{} {}: {} [{}]".format(name, key, text, ", ".join(words))
                 for name, key, text in texts for words in [english_words(text, allowed)] if words]
        self.assertEqual(leaks, [], "\n".join(["{} Chinese text(s) with English words:".format(len(leaks))] + leaks))

    def test_the_scan_sees_english(self):
        # What it is for: prose is caught, code and names are not.
        allowed = ALLOWED | {"Conv"}
        self.assertEqual(english_words("融合 Conv 与 Normalization 之后的 layout", allowed), ["Normalization", "layout"])
        self.assertEqual(english_words("使用 `msadvisor-cli profile --trace` 与 pin_memory=True、{node}", allowed), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
