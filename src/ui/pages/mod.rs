pub mod app_page;
pub mod auth;
pub mod console_apps;
pub mod export_page;
pub mod history_page;
pub mod landing;
pub mod new_app;
pub mod not_found;
