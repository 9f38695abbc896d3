#pragma once
// One undoable edit: the session's state before and after an Apply (one finding, or every safe
// one at once). Both states are kept whole, so undo and redo are instant and never re-run a pass.
#include <QUndoCommand>
#include <functional>

#include "edit/edit_state.h"

namespace msa::ui {

class EditSession;

class EditCommand : public QUndoCommand {
 public:
  // `describe` words the command in the UI language of the moment (Edit ▸ Undo says it).
  EditCommand(EditSession* session, EditStatePtr before, EditStatePtr after, std::function<QString()> describe);
  void redo() override;
  void undo() override;
  void retranslate() { setText(m_describe()); }
  EditStatePtr before() const { return m_before; }
  EditStatePtr after() const { return m_after; }
  // The session replaced a state by one with a new analysis.
  void replaceState(const EditStatePtr& old, const EditStatePtr& replacement) {
    if (m_before == old) m_before = replacement;
    if (m_after == old) m_after = replacement;
  }

 private:
  EditSession* m_session;
  EditStatePtr m_before, m_after;
  std::function<QString()> m_describe;
};

}  // namespace msa::ui
