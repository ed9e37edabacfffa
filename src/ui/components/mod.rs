pub mod app_forms;
pub mod auth_forms;
pub mod form;
pub mod phrase_preview;
pub mod site_header;
pub mod status_page;
pub mod tool_editor;
pub mod tools_section;
