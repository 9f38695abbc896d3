#pragma once
// One state of an editing session: the model, the document drawn for it and the analysis of it.
// States are immutable and shared: an undo step holds the state before and after, and weights
// are shared between the models of all steps (a Model copy copies nodes, not tensor bytes).
#include <QMap>
#include <QStringList>
#include <memory>
#include <vector>

#include "advisor/advisor.h"
#include "graph/model_document.h"
#include "optimize/pass.h"

namespace msa::ui {

struct EditState {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const ModelDocument> document;
  std::shared_ptr<const Report> report;  // null: not analysed (or re-analysis failed, see reportError)
  QString reportError;
  std::vector<Rewrite> rewrites;         // what the step into this state did (empty for the original)
  // Safe findings of `report` that Apply All Safe Fixes tried on this model and could not apply,
  // by id, with the reason (the fixed point it stopped at: what is left, and why).
  QMap<QString, QString> refused;
  std::shared_ptr<const EditState> previous;  // the state this one was made from (null for the original)
};

using EditStatePtr = std::shared_ptr<const EditState>;

}  // namespace msa::ui
