//! What the developer sees: one file per page, small shared components.

pub mod components;
pub mod pages;
pub mod session;
