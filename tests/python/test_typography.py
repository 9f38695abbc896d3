"""One typography in every text we ship (issue 31): a figure and its unit are joined by a narrow
no-break space (U+202F, core/util/units.h kUnitSpace), so that "12.3 ms" never breaks across two
lines and reads the same in the rule texts, the reports and the GUI. Scans every string under
resources/ (both languages) and every source and translation in translations/*.ts for a figure — a
number or a {placeholder} / %1 argument — followed by an ordinary space and a unit."""
import glob
import json
import os
import re
import unittest
import xml.etree.ElementTree as ET

SOURCE = os.environ.get("MSA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))

UNITS = r"(?:ms|µs|ns|MB|GB|KB|MiB|GiB|KiB|GB/s|TB/s|MHz|GHz|GFLOP/s|TFLOP/s)"
# A figure, an ordinary space, a unit that is not the start of a longer word.
LOOSE = re.compile(r"(?:\d|\{[a-z_0-9]+\}|%\d) " + UNITS + r"(?![\w/])")


def resource_texts():
    out = []

    def walk(node, path, name):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, path + [key], name)
        elif isinstance(node, list):
            for value in node:
                walk(value, path, name)
        elif isinstance(node, str):
            out.append((name, ".".join(path), node))

    for name in sorted(glob.glob(os.path.join(SOURCE, "resources", "**", "*.json"), recursive=True)):
        with open(name, encoding="utf-8") as f:
            walk(json.load(f), [], os.path.relpath(name, SOURCE))
    return out


def translation_texts():
    out = []
    for name in sorted(glob.glob(os.path.join(SOURCE, "translations", "*.ts"))):
        for message in ET.parse(name).getroot().iter("message"):
            for tag in ("source", "translation"):
                for node in message.iter(tag):
                    texts = [node.text or ""] + [n.text or "" for n in node.iter("numerusform")]
                    out += [(os.path.relpath(name, SOURCE), tag, t) for t in texts if t]
    return out


class Typography(unittest.TestCase):
    def loose(self, texts):
        return ["{} {}: {}".format(name, key, text) for name, key, text in texts if LOOSE.search(text)]

    def test_figures_keep_their_unit(self):
        texts = resource_texts()
        self.assertGreater(len(texts), 1000)  # the catalogue is found
        loose = self.loose(texts)
        self.assertEqual(loose, [], "\n".join(["{} text(s) put an ordinary space before a unit:".format(len(loose))] + loose))

    def test_gui_strings_keep_their_unit(self):
        texts = translation_texts()
        self.assertGreater(len(texts), 200)
        loose = self.loose(texts)
        self.assertEqual(loose, [], "\n".join(["{} GUI string(s) put an ordinary space before a unit:".format(len(loose))] + loose))

    def test_the_scan_sees_a_loose_unit(self):
        self.assertTrue(LOOSE.search("took {ms} ms"))
        self.assertTrue(LOOSE.search("under 20 µs"))
        self.assertTrue(LOOSE.search("total %1 MB"))
        self.assertFalse(LOOSE.search("took {ms}\u202fms"))
        self.assertFalse(LOOSE.search("the 3 msprof files"))  # a word, not a unit
        self.assertFalse(LOOSE.search("{count} MatMuls"))


if __name__ == "__main__":
    unittest.main()
