#include "edit/edit_command.h"

#include "edit/edit_session.h"

namespace msa::ui {

EditCommand::EditCommand(EditSession* session, EditStatePtr before, EditStatePtr after, const QString& text)
    : QUndoCommand(text), m_session(session), m_before(std::move(before)), m_after(std::move(after)) {}

void EditCommand::redo() { m_session->restore(m_after); }
void EditCommand::undo() { m_session->restore(m_before); }

}  // namespace msa::ui
