//! The flags of `serve --http` that make the HTTP server an OAuth resource server, and the
//! [`OAuthConfig`] they make.

use clap::Args;

use super::error::CliError;
use crate::server::{Introspection, OAuthConfig};

/// The OAuth flags of `serve`.
#[derive(Args)]
pub(super) struct OAuthArgs {
    /// Take OAuth access tokens (JWTs) from this authorization server, its issuer
    /// identifier (`iss`): its keys are found through its metadata. Needs
    /// `--oauth-audience`.
    #[arg(id = "oauth_issuer", long = "oauth-issuer", value_name = "URL", requires_all = ["http", "oauth_audience"])]
    pub(super) issuer: Option<String>,
    /// This server's own URL as clients reach it (`https://mcp.example.com/mcp`): access
    /// tokens must name it as their audience.
    #[arg(
        id = "oauth_audience",
        long = "oauth-audience",
        value_name = "URL",
        requires = "oauth_issuer"
    )]
    audience: Option<String>,
    /// A scope clients may ask for, published in the metadata (repeatable).
    #[arg(long = "oauth-scope", value_name = "SCOPE", requires = "oauth_issuer")]
    scopes: Vec<String>,
    /// List each caller only the tools, resources and prompts its token's scopes let it
    /// use. Without it everything is listed, and a request without the scopes gets 403.
    #[arg(long = "oauth-hide-unauthorized", requires = "oauth_issuer")]
    hide_unauthorized: bool,
    /// Take opaque access tokens too (those that are not JWTs): ask the authorization
    /// server about each (token introspection, RFC 7662) at URL, or at the
    /// `introspection_endpoint` its metadata names. This server signs in as its client:
    /// `--oauth-client-id` (or `MCP_OAUTH_CLIENT_ID`) and the secret in
    /// `MCP_OAUTH_CLIENT_SECRET` (or `--oauth-client-secret`).
    #[arg(id = "oauth_introspection", long = "oauth-introspection", value_name = "URL", num_args = 0..=1, requires = "oauth_issuer")]
    introspection: Option<Option<String>>,
    /// Introspect every token, JWTs too, instead of checking JWTs against the keys.
    #[arg(long = "oauth-introspect-all", requires = "oauth_introspection")]
    introspect_all: bool,
    /// This server's client id at the authorization server, for introspection. Otherwise
    /// the environment variable `MCP_OAUTH_CLIENT_ID`.
    #[arg(
        long = "oauth-client-id",
        value_name = "ID",
        requires = "oauth_introspection"
    )]
    client_id: Option<String>,
    /// Its client secret. Otherwise the environment variable `MCP_OAUTH_CLIENT_SECRET`,
    /// which keeps it out of the process list.
    #[arg(
        long = "oauth-client-secret",
        value_name = "SECRET",
        requires = "oauth_introspection"
    )]
    client_secret: Option<String>,
}

/// The environment variables the client credentials of token introspection come from when
/// no flag gives them: the secret is best kept out of the process list.
const CLIENT_ID_ENV: &str = "MCP_OAUTH_CLIENT_ID";
const CLIENT_SECRET_ENV: &str = "MCP_OAUTH_CLIENT_SECRET";

impl OAuthArgs {
    /// The OAuth settings of `--oauth-issuer` and its companions, checked; `env` reads an
    /// environment variable.
    pub(super) fn config(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<OAuthConfig>, CliError> {
        let (Some(issuer), Some(audience)) = (&self.issuer, &self.audience) else {
            return Ok(None);
        };
        let mut config = OAuthConfig::new(issuer, audience)
            .scopes_supported(&self.scopes)
            .hide_unauthorized(self.hide_unauthorized);
        if let Some(endpoint) = &self.introspection {
            let given = |flag: &Option<String>, variable: &str| {
                flag.clone()
                    .or_else(|| env(variable))
                    .map(|value| value.trim().to_owned())
                    .filter(|value| !value.is_empty())
            };
            let client_id =
                given(&self.client_id, CLIENT_ID_ENV).ok_or(CliError::NoClientId(CLIENT_ID_ENV))?;
            let client_secret = given(&self.client_secret, CLIENT_SECRET_ENV)
                .ok_or(CliError::NoClientSecret(CLIENT_SECRET_ENV))?;
            let mut introspection =
                Introspection::new(client_id, client_secret).always(self.introspect_all);
            if let Some(endpoint) = endpoint {
                introspection = introspection.endpoint(endpoint);
            }
            config = config.introspection(introspection);
        }
        match config.problems().first() {
            Some(problem) => Err(CliError::OAuth(problem.clone())),
            None => Ok(Some(config)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Command;
    use super::super::tests::parse;
    use super::*;

    #[test]
    fn oauth_flags_make_the_oauth_settings() {
        let settings = |args: &[&str]| match parse(args) {
            Ok(Command::Serve(serve)) => serve.oauth.config(|_| None),
            _ => panic!("{args:?} parses"),
        };
        let issuer = ["serve", "--http", "--oauth-issuer", "https://as.example"];
        let audience = ["--oauth-audience", "https://mcp.example/mcp"];
        let plain = settings(&[&issuer[..], &audience].concat())
            .expect("good settings")
            .expect("OAuth is on");
        assert_eq!(plain.issuer, "https://as.example");
        assert_eq!(plain.resource, "https://mcp.example/mcp");
        assert!(!plain.hide_unauthorized);
        let hiding = settings(&[&issuer[..], &audience, &["--oauth-hide-unauthorized"]].concat())
            .expect("good settings")
            .expect("OAuth is on");
        assert!(hiding.hide_unauthorized);
        assert!(parse(&["serve", "--http", "--oauth-hide-unauthorized"]).is_err());
    }

    #[test]
    fn introspection_takes_its_client_credentials_from_flags_or_the_environment() {
        let serve = |args: &[&str]| match parse(
            &[
                &["serve", "--http", "--oauth-issuer", "https://as.example"][..],
                &["--oauth-audience", "https://mcp.example/mcp"],
                args,
            ]
            .concat(),
        ) {
            Ok(Command::Serve(serve)) => serve,
            _ => panic!("{args:?} parses"),
        };
        let environment = |name: &str| match name {
            CLIENT_ID_ENV => Some("id-from-env".to_owned()),
            CLIENT_SECRET_ENV => Some(" secret-from-env\n".to_owned()),
            _ => None,
        };
        let introspection = |args: &[&str], env: &dyn Fn(&str) -> Option<String>| {
            serve(args).oauth.config(env).map(|config| {
                config
                    .and_then(|config| config.introspection)
                    .expect("introspection is on")
            })
        };
        let from_env = introspection(&["--oauth-introspection"], &environment).expect("good");
        assert_eq!(from_env.endpoint, None);
        assert_eq!(from_env.client_id, "id-from-env");
        assert_eq!(from_env.client_secret, "secret-from-env");
        assert!(!from_env.always);
        let from_flags = introspection(
            &[
                "--oauth-introspection",
                "https://as.example/introspect",
                "--oauth-introspect-all",
                "--oauth-client-id",
                "id-from-flag",
                "--oauth-client-secret",
                "secret-from-flag",
            ],
            &environment,
        )
        .expect("good");
        assert_eq!(
            from_flags.endpoint.as_deref(),
            Some("https://as.example/introspect")
        );
        assert_eq!(from_flags.client_id, "id-from-flag");
        assert_eq!(from_flags.client_secret, "secret-from-flag");
        assert!(from_flags.always);
        let nothing = |_: &str| None;
        let no_id = introspection(&["--oauth-introspection"], &nothing).expect_err("no id");
        assert!(matches!(no_id, CliError::NoClientId(_)), "{no_id}");
        assert!(no_id.to_string().contains(CLIENT_ID_ENV), "{no_id}");
        let no_secret = introspection(
            &["--oauth-introspection", "--oauth-client-id", "id"],
            &nothing,
        )
        .expect_err("no secret");
        assert!(
            matches!(no_secret, CliError::NoClientSecret(_)),
            "{no_secret}"
        );
        assert!(
            no_secret.to_string().contains(CLIENT_SECRET_ENV),
            "{no_secret}"
        );
        let not_a_url = introspection(&["--oauth-introspection", "nowhere"], &environment)
            .expect_err("not a URL");
        assert!(
            not_a_url
                .to_string()
                .contains("`nowhere` is not an http(s) URL"),
            "{not_a_url}"
        );
        for needs_introspection in [
            &["--oauth-introspect-all"][..],
            &["--oauth-client-id", "id"],
            &["--oauth-client-secret", "s"],
        ] {
            let args = [
                &["serve", "--http", "--oauth-issuer", "https://as.example"][..],
                &["--oauth-audience", "https://mcp.example/mcp"],
                needs_introspection,
            ]
            .concat();
            assert!(parse(&args).is_err(), "{needs_introspection:?}");
        }
    }
}
