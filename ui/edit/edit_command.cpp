#include "edit/edit_command.h"

#include "edit/edit_session.h"

namespace msa::ui {

EditCommand::EditCommand(EditSession* session, EditStatePtr before, EditStatePtr after, std::function<QString()> describe)
    : QUndoCommand(describe()),
      m_session(session),
      m_before(std::move(before)),
      m_after(std::move(after)),
      m_describe(std::move(describe)) {}

void EditCommand::redo() { m_session->restore(m_after); }
void EditCommand::undo() { m_session->restore(m_before); }

}  // namespace msa::ui
