//! The signed-in developer, for server-rendered parts of pages.

use crate::{api::auth::CurrentDeveloper, domain::org::Memberships};

/// The developer of the request being rendered. Always `None` in the browser:
/// only server-rendered components ask (islands get what they need as props).
pub fn current_developer() -> Option<CurrentDeveloper> {
    #[cfg(feature = "ssr")]
    {
        crate::api::context::current_developer()
    }
    #[cfg(not(feature = "ssr"))]
    {
        None
    }
}

/// The signed-in developer's organizations and their current one (empty in
/// the browser, as [`current_developer`]).
pub fn current_memberships() -> Memberships {
    #[cfg(feature = "ssr")]
    {
        crate::api::context::memberships()
    }
    #[cfg(not(feature = "ssr"))]
    {
        Memberships::default()
    }
}
