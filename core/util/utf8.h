#pragma once
// Names in models and profiles are bytes: ONNX says UTF-8, but nothing enforces it. These keep
// such names printable and let a JSON parser (which insists on UTF-8) read what a runtime wrote.
#include <string>
#include <string_view>

namespace msa {

bool isValidUtf8(std::string_view s);
// Valid UTF-8 as it is; every byte that is not part of a valid sequence as "\xNN".
std::string escapeInvalidUtf8(std::string_view s);

// JSON text whose strings may hold bytes that are not UTF-8 (ONNX Runtime's profile of a model
// with such node names): each such byte NN becomes the escape \uF7NN (a private-use character)
// so a strict parser accepts the text; restoreRawBytes turns those characters back into the
// bytes. Returns the text unchanged when it is valid UTF-8 (then nothing needs restoring).
std::string protectInvalidUtf8InJson(std::string_view json, bool* changed = nullptr);
std::string restoreRawBytes(std::string_view s);

}  // namespace msa
