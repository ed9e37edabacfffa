pub mod auth;
pub mod console_apps;
pub mod landing;
pub mod not_found;
