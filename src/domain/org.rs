//! Organizations: who may do what to a team's apps, and the rules of names,
//! slugs and invitations. Pure: the lookups are in `server::access`.

use serde::{Deserialize, Serialize};

/// A member's role in an organization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Admin,
    Member,
}

impl Role {
    pub const ALL: [Role; 2] = [Role::Admin, Role::Member];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Member => "member",
        }
    }

    /// A role as stored and as posted by the forms.
    pub fn parse(text: &str) -> Option<Role> {
        match text.trim() {
            "admin" => Some(Role::Admin),
            "member" => Some(Role::Member),
            _ => None,
        }
    }

    /// Whether this role may do `action`. Everything about apps and their
    /// tools is every member's work; what changes who can reach an app (keys,
    /// members, invitations) or removes it is an admin's.
    pub fn may(self, action: Action) -> bool {
        match self {
            Role::Admin => true,
            Role::Member => matches!(action, Action::Read | Action::Edit),
        }
    }
}

/// What a developer asks to do to an app or an organization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// See it: pages, exports, history, checks, test connection.
    Read,
    /// Change it: apps and tools, import, restore, try a tool.
    Edit,
    /// Create and revoke an app's API keys.
    ManageKeys,
    DeleteApp,
    /// Move an app to another organization (admin in both).
    MoveApp,
    /// Change a member's role or remove them.
    ManageMembers,
    /// Invite, resend and cancel invitations.
    Invite,
    DeleteOrganization,
    /// Add and remove the organization's model providers (members use them).
    ManageProviders,
}

impl Action {
    /// What a member who asks for an admin's action is told.
    pub fn refusal(self) -> &'static str {
        match self {
            Action::Read | Action::Edit => "You are not a member of this organization.",
            Action::ManageKeys => "Only an admin can create or revoke API keys.",
            Action::DeleteApp => "Only an admin can delete an app.",
            Action::MoveApp => "Only an admin can move an app to another organization.",
            Action::ManageMembers => "Only an admin can change or remove members.",
            Action::Invite => "Only an admin can invite members.",
            Action::DeleteOrganization => "Only an admin can delete the organization.",
            Action::ManageProviders => "Only an admin can add or remove model providers.",
        }
    }
}

/// What a write's own transaction found when it read the asker's standing
/// again, just before writing (see `server::repo::sql`'s `may_write!`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// The app was deleted since the request began.
    AppGone,
    /// The organization was deleted since the request began.
    OrgGone,
    /// The asker is no longer a member of the organization (asked of an
    /// organization).
    NotMember,
    /// The app's organization is not (or no longer) one of the asker's:
    /// they were removed, or the app was moved out of their reach.
    OutOfReach,
    /// A member with this role (as stored).
    Role(String),
}

/// Whether `role` may do `action`: the refusal a member gets for an
/// admin's action.
pub fn allow(role: Role, action: Action) -> Result<(), crate::domain::AppError> {
    if role.may(action) {
        Ok(())
    } else {
        Err(crate::domain::AppError::NotAllowed(
            action.refusal().to_owned(),
        ))
    }
}

/// The same rule as [`allow`], applied to what a write's transaction found:
/// the role, or, when the asker's standing ended while their request was on
/// its way, why — in words, since they were a member a moment ago and lose
/// nothing by being told.
pub fn allow_at_write(found: &Standing, action: Action) -> Result<Role, crate::domain::AppError> {
    use crate::domain::AppError;
    let role = match found {
        Standing::AppGone => return Err(AppError::Gone("This app no longer exists.".to_owned())),
        Standing::OrgGone => {
            return Err(AppError::Gone(
                "This organization no longer exists.".to_owned(),
            ))
        }
        Standing::NotMember => {
            return Err(AppError::Gone(
                "You are no longer a member of this organization.".to_owned(),
            ))
        }
        Standing::OutOfReach => {
            return Err(AppError::Gone(
                "This app is no longer in an organization you belong to.".to_owned(),
            ))
        }
        Standing::Role(text) => Role::parse(text).ok_or(AppError::Internal)?,
    };
    allow(role, action)?;
    Ok(role)
}

/// The organization's name: 1 to 100 characters after trimming.
pub const ORG_NAME_MAX: usize = 100;
/// The name of the organization each developer gets with their account.
pub const PERSONAL: &str = "Personal";

pub fn check_org_name(name: &str) -> Result<String, &'static str> {
    let name = name.trim();
    match name.chars().count() {
        0 => Err("Give the organization a name"),
        n if n > ORG_NAME_MAX => Err("An organization name has at most 100 characters"),
        _ => Ok(name.to_owned()),
    }
}

/// The longest slug made from a name (before a suffix that makes it unique).
const SLUG_MAX: usize = 60;

/// Slugs a name may not take: the console's own pages under `/console/orgs/`.
pub const RESERVED_SLUGS: [&str; 1] = ["new"];

/// The URL slug a name gives: lower-case ASCII letters and digits, anything
/// else a single `-`, none at either end; `org` when nothing is left (a
/// name in another script). [`unique_slug`] then makes it unique.
pub fn slugify(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if slug.len() == SLUG_MAX {
                break;
            }
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "org".to_owned()
    } else {
        slug.to_owned()
    }
}

/// `base`, or `base-2`, `base-3`, … — the first that is neither `taken`
/// nor reserved.
pub fn unique_slug(base: &str, taken: &[String]) -> String {
    let free = |slug: &str| !RESERVED_SLUGS.contains(&slug) && !taken.iter().any(|t| t == slug);
    if free(base) {
        return base.to_owned();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|slug| free(slug))
        .expect("some suffix is free")
}

/// An organization the signed-in developer belongs to, with their role.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrgSummary {
    pub id: i64,
    pub slug: String,
    pub name: String,
    pub role: Role,
}

/// The organizations of the signed-in developer (by name) and the one they
/// chose last, looked up with the developer on every request: the header's
/// switcher, and where a new app is made.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memberships {
    pub orgs: Vec<OrgSummary>,
    pub current_id: Option<i64>,
}

impl Memberships {
    /// The current organization: the one chosen last while still a member
    /// of it, otherwise the oldest they belong to (their personal one, unless
    /// they left it).
    pub fn current(&self) -> Option<&OrgSummary> {
        self.current_id
            .and_then(|id| self.orgs.iter().find(|org| org.id == id))
            .or_else(|| self.orgs.iter().min_by_key(|org| org.id))
    }
}

/// One member, as the organization page lists them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub email: String,
    pub role: Role,
    pub joined_at: i64,
}

/// An invitation not yet used, cancelled or expired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingInvitation {
    pub email: String,
    pub role: Role,
    pub expires_at: i64,
}

/// Everything the organization page shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrgPage {
    pub slug: String,
    pub name: String,
    /// The role of the developer looking.
    pub role: Role,
    pub members: Vec<Member>,
    /// Only an admin sees them (empty for a member).
    pub invitations: Vec<PendingInvitation>,
    pub app_count: i64,
    /// The email of the developer looking.
    pub me: String,
    /// The link of the invitation just made: shown once.
    pub invitation_link: Option<String>,
    /// Its model providers (every member sees them: members run evals).
    pub providers: Vec<crate::domain::eval::ProviderSummary>,
    /// Whether providers can be added: the console has a secret key.
    pub providers_enabled: bool,
}

/// The email an invitation is for: normalised like an account's email.
pub fn check_invite_email(email: &str) -> Result<String, &'static str> {
    use validator::ValidateEmail;
    let email = crate::domain::account::normalize_email(email);
    if email.is_empty() {
        Err("Enter the email address of the person to invite")
    } else if email.chars().count() > 254 || !email.validate_email() {
        Err("Enter a valid email address, like you@example.com")
    } else {
        Ok(email)
    }
}

/// How long an invitation link works.
pub const INVITATION_DAYS: i64 = 7;
pub const INVITATION_MS: i64 = INVITATION_DAYS * 24 * 60 * 60 * 1000;

/// Where an invitation stands when its link is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum InvitationState {
    Pending,
    Used,
    Expired,
    Cancelled,
}

impl InvitationState {
    /// From the invitation's row: accepted and cancelled times, expiry, now.
    pub fn of(
        accepted_at: Option<i64>,
        cancelled_at: Option<i64>,
        expires_at: i64,
        now: i64,
    ) -> Self {
        if accepted_at.is_some() {
            InvitationState::Used
        } else if cancelled_at.is_some() {
            InvitationState::Cancelled
        } else if now >= expires_at {
            InvitationState::Expired
        } else {
            InvitationState::Pending
        }
    }

    /// What the invitation page says of a link that no longer works.
    pub fn message(self) -> Option<&'static str> {
        match self {
            InvitationState::Pending => None,
            InvitationState::Used => Some("This invitation link has already been used."),
            InvitationState::Expired => Some("This invitation link has expired."),
            InvitationState::Cancelled => Some("This invitation link was cancelled."),
        }
    }
}

/// An invitation link as its page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvitationView {
    pub org_name: String,
    pub org_slug: String,
    pub email: String,
    pub role: Role,
    pub state: InvitationState,
}

/// Whether a change of `members`' roles (or a removal) leaves the
/// organization without an admin: the last admin can neither leave nor be
/// demoted.
pub fn leaves_no_admin(admins: i64, target_is_admin: bool, target_stays_admin: bool) -> bool {
    target_is_admin && !target_stays_admin && admins <= 1
}

pub const LAST_ADMIN_MESSAGE: &str =
    "An organization needs an admin: make someone else admin first.";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::AppError;

    #[test]
    fn a_write_is_allowed_by_the_role_its_transaction_found() {
        let member = Standing::Role("member".to_owned());
        let admin = Standing::Role("admin".to_owned());
        assert_eq!(allow_at_write(&member, Action::Edit), Ok(Role::Member));
        assert_eq!(allow_at_write(&admin, Action::ManageKeys), Ok(Role::Admin));
        // Demoted on the way: an admin's action is refused as for any member.
        assert_eq!(
            allow_at_write(&member, Action::ManageKeys),
            Err(AppError::NotAllowed(
                Action::ManageKeys.refusal().to_owned()
            ))
        );
    }

    #[test]
    fn a_standing_that_ended_on_the_way_is_refused_in_words() {
        for (found, says) in [
            (Standing::AppGone, "This app no longer exists."),
            (Standing::OrgGone, "This organization no longer exists."),
            (
                Standing::NotMember,
                "You are no longer a member of this organization.",
            ),
            (
                Standing::OutOfReach,
                "This app is no longer in an organization you belong to.",
            ),
        ] {
            let refusal = allow_at_write(&found, Action::Read).unwrap_err();
            assert_eq!(refusal, AppError::Gone(says.to_owned()));
            assert_eq!(refusal.status(), 404);
        }
        // A role the console never writes is the server's own failure.
        assert_eq!(
            allow_at_write(&Standing::Role("owner".to_owned()), Action::Read),
            Err(AppError::Internal)
        );
    }

    #[test]
    fn members_edit_and_admins_do_everything() {
        for action in [Action::Read, Action::Edit] {
            assert!(Role::Member.may(action));
            assert!(Role::Admin.may(action));
        }
        for action in [
            Action::ManageKeys,
            Action::DeleteApp,
            Action::MoveApp,
            Action::ManageMembers,
            Action::Invite,
            Action::DeleteOrganization,
            Action::ManageProviders,
        ] {
            assert!(!Role::Member.may(action), "{action:?}");
            assert!(Role::Admin.may(action), "{action:?}");
            assert!(action.refusal().starts_with("Only an admin can"));
        }
    }

    #[test]
    fn roles_read_back_as_they_are_written() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse("owner"), None);
        assert_eq!(Role::parse(""), None);
    }

    #[test]
    fn an_invited_email_is_normalised_and_must_be_an_email() {
        assert_eq!(
            check_invite_email(" Bob@Example.COM "),
            Ok("bob@example.com".to_owned())
        );
        assert!(check_invite_email("").is_err());
        assert!(check_invite_email("bob").is_err());
    }

    #[test]
    fn a_name_is_trimmed_and_1_to_100_characters() {
        assert_eq!(check_org_name("  Acme  "), Ok("Acme".to_owned()));
        assert!(check_org_name("   ").is_err());
        assert!(check_org_name(&"é".repeat(100)).is_ok());
        assert!(check_org_name(&"é".repeat(101)).is_err());
    }

    #[test]
    fn slugs_are_lower_case_words_joined_by_dashes() {
        assert_eq!(slugify("Acme Robotics"), "acme-robotics");
        assert_eq!(slugify("  Über -- Team!! 2 "), "ber-team-2");
        assert_eq!(slugify("alice@example.com"), "alice-example-com");
        assert_eq!(slugify("日本"), "org");
        assert_eq!(slugify(&"a".repeat(200)).len(), 60);
    }

    #[test]
    fn a_taken_or_reserved_slug_gets_the_first_free_number() {
        assert_eq!(unique_slug("acme", &[]), "acme");
        let taken = vec!["acme".to_owned(), "acme-2".to_owned()];
        assert_eq!(unique_slug("acme", &taken), "acme-3");
        assert_eq!(unique_slug("new", &[]), "new-2");
    }

    #[test]
    fn an_invitation_is_used_cancelled_expired_or_pending_in_that_order() {
        assert_eq!(
            InvitationState::of(None, None, 100, 99),
            InvitationState::Pending
        );
        assert_eq!(
            InvitationState::of(None, None, 100, 100),
            InvitationState::Expired
        );
        assert_eq!(
            InvitationState::of(None, Some(1), 100, 200),
            InvitationState::Cancelled
        );
        assert_eq!(
            InvitationState::of(Some(1), Some(2), 100, 200),
            InvitationState::Used
        );
        assert_eq!(
            InvitationState::Expired.message(),
            Some("This invitation link has expired.")
        );
        assert_eq!(InvitationState::Pending.message(), None);
    }

    #[test]
    fn the_current_organization_is_the_chosen_one_while_a_member_else_the_oldest() {
        let org = |id: i64, name: &str| OrgSummary {
            id,
            slug: name.to_lowercase(),
            name: name.to_owned(),
            role: Role::Member,
        };
        let mut memberships = Memberships {
            orgs: vec![org(3, "Acme"), org(1, "Zeta")],
            current_id: Some(1),
        };
        assert_eq!(memberships.current().map(|o| o.id), Some(1));
        memberships.current_id = Some(9);
        assert_eq!(memberships.current().map(|o| o.id), Some(1));
        memberships.current_id = None;
        assert_eq!(memberships.current().map(|o| o.id), Some(1));
        assert_eq!(Memberships::default().current(), None);
    }

    #[test]
    fn the_last_admin_cannot_leave_or_be_demoted() {
        assert!(leaves_no_admin(1, true, false));
        assert!(!leaves_no_admin(2, true, false));
        assert!(!leaves_no_admin(1, true, true));
        assert!(!leaves_no_admin(1, false, false));
    }
}
