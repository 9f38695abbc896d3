#pragma once
// Toolbar icons drawn with QPainter: crisp at any device pixel ratio, no icon theme needed.
#include <QIcon>

namespace msa::ui::icons {

QIcon open();
QIcon zoomIn();
QIcon zoomOut();
QIcon fit();
QIcon find();
QIcon shapes();
QIcon expandAll();
QIcon collapseAll();
QIcon analyze();
QIcon undo();
QIcon redo();

}  // namespace msa::ui::icons
