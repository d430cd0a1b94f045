//! The user's side of an authorization: someone opens the authorization server's page,
//! consents, and the browser is sent back to the client's redirect URI with a code.
//! [`UserAgent`] is that step; [`LoopbackRedirect`] does it for a command-line program, by
//! listening on a loopback port for the redirect (RFC 8252, section 7.3).

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::Uri;
use axum::response::Html;
use axum::routing::get;
use futures_util::future::BoxFuture;
use tokio::sync::oneshot;

use super::AuthError;

/// How long [`LoopbackRedirect`] waits for the browser to come back, unless told otherwise.
pub const DEFAULT_CONSENT_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// The user's side of an authorization: shows the authorization server's page to the user
/// and hands back where the authorization server redirected the browser.
///
/// The client makes the authorization request (PKCE, `state`, the resource) and checks
/// the answer (`state`, `iss`, the code); the user agent only carries it.
pub trait UserAgent: Send + Sync + 'static {
    /// The redirect URI the client registers and names in its authorization requests.
    fn redirect_uri(&self) -> String;

    /// Has the user visit `authorization_url`, and returns the full URL the authorization
    /// server redirected the browser to (the redirect URI with `code`, `state` and `iss`,
    /// or with `error`).
    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<String, AuthError>>;
}

/// The redirect received on a loopback port: for command-line programs and desktop apps.
/// The address to open is handed to a function of the application's (by default, printed
/// on standard error); the browser's return to `http://127.0.0.1:PORT/callback` ends the
/// wait.
///
/// ```no_run
/// use mcp_runtime::client::oauth::{LoopbackRedirect, OAuth};
///
/// # fn run() -> std::io::Result<()> {
/// let oauth = OAuth::new(LoopbackRedirect::bind()?.on_url(|url| {
///     eprintln!("Sign in at {url}");
/// }));
/// # Ok(()) }
/// ```
pub struct LoopbackRedirect {
    listener: TcpListener,
    address: SocketAddr,
    on_url: Arc<dyn Fn(&str) + Send + Sync>,
    timeout: Duration,
    /// One consent at a time on the one port.
    busy: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for LoopbackRedirect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackRedirect")
            .field("address", &self.address)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackRedirect {
    /// Listens on a free loopback port.
    pub fn bind() -> std::io::Result<Self> {
        Self::bind_port(0)
    }

    /// Listens on loopback port `port`: for an authorization server that wants the
    /// redirect URI's port registered ahead.
    pub fn bind_port(port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        Ok(Self {
            listener,
            address,
            on_url: Arc::new(|url| {
                #[allow(clippy::print_stderr)]
                {
                    eprintln!("To authorize, open this address in a browser:\n  {url}");
                }
            }),
            timeout: DEFAULT_CONSENT_TIMEOUT,
            busy: tokio::sync::Mutex::new(()),
        })
    }

    /// Hands the address to open to `on_url` (to open a browser, or show it in a UI)
    /// instead of printing it.
    #[must_use]
    pub fn on_url(mut self, on_url: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_url = Arc::new(on_url);
        self
    }

    /// Waits at most `timeout` for the browser to come back (five minutes by default).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn receive(&self, authorization_url: String) -> Result<String, AuthError> {
        let _one_at_a_time = self.busy.lock().await;
        let failed =
            |err: std::io::Error| AuthError::UserAgent(format!("the loopback port: {err}"));
        let listener =
            tokio::net::TcpListener::from_std(self.listener.try_clone().map_err(failed)?)
                .map_err(failed)?;
        let (arrived, came_back) = oneshot::channel::<String>();
        let waiting = Waiting {
            arrived: Arc::new(Mutex::new(Some(arrived))),
            base: format!("http://{}", self.address),
        };
        let app = Router::new()
            .route("/callback", get(callback))
            .with_state(waiting);
        let (stop, stopped) = oneshot::channel::<()>();
        let serving = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        (self.on_url)(&authorization_url);
        let outcome = tokio::time::timeout(self.timeout, came_back).await;
        let _ = stop.send(());
        let _ = serving.await;
        match outcome {
            Ok(Ok(url)) => Ok(url),
            Ok(Err(_)) => Err(AuthError::UserAgent(
                "the loopback listener stopped before the browser came back".to_owned(),
            )),
            Err(_) => Err(AuthError::UserAgent(format!(
                "the browser did not come back to {} within {:?}",
                self.redirect_uri(),
                self.timeout
            ))),
        }
    }
}

/// Where the browser's return goes: the waiting consent (taken by the first return), and
/// the listener's own address, to make the returned URL whole.
#[derive(Clone)]
struct Waiting {
    arrived: Arc<Mutex<Option<oneshot::Sender<String>>>>,
    base: String,
}

/// The browser's return: the first one ends the wait.
async fn callback(
    State(Waiting { arrived, base }): State<Waiting>,
    uri: Uri,
) -> Html<&'static str> {
    let sender = arrived
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    if let Some(sender) = sender {
        let _ = sender.send(format!("{base}{uri}"));
    }
    Html(
        "<!doctype html><title>Authorized</title>\
         <p>The authorization is back with the application. You can close this window.</p>",
    )
}

impl UserAgent for LoopbackRedirect {
    fn redirect_uri(&self) -> String {
        format!("http://{}/callback", self.address)
    }

    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(self.receive(authorization_url))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_loopback_listener_hands_back_the_url_the_browser_returned_to() {
        let (shown, url_shown) = std::sync::mpsc::channel::<String>();
        let agent = LoopbackRedirect::bind()
            .unwrap()
            .on_url(move |url| shown.send(url.to_owned()).unwrap());
        let redirect = agent.redirect_uri();
        assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
        let browser = tokio::spawn({
            let redirect = redirect.clone();
            async move {
                let page = tokio::task::spawn_blocking(move || url_shown.recv().unwrap())
                    .await
                    .unwrap();
                assert_eq!(page, "https://auth.example/authorize?x=1");
                reqwest::get(format!("{redirect}?code=abc&state=s%20t"))
                    .await
                    .unwrap()
                    .text()
                    .await
                    .unwrap()
            }
        });
        let returned = agent
            .authorize("https://auth.example/authorize?x=1".to_owned())
            .await
            .unwrap();
        assert_eq!(returned, format!("{redirect}?code=abc&state=s%20t"));
        assert!(browser.await.unwrap().contains("close this window"));
    }

    #[tokio::test]
    async fn a_browser_that_never_comes_back_ends_the_wait_with_the_reason() {
        let agent = LoopbackRedirect::bind()
            .unwrap()
            .on_url(|_| {})
            .timeout(Duration::from_millis(50));
        let err = agent.authorize("https://a/".to_owned()).await.unwrap_err();
        assert!(err.to_string().contains("did not come back"), "{err}");
        // The port is still the agent's: the next consent comes back on it.
        let agent = agent.timeout(DEFAULT_CONSENT_TIMEOUT);
        let redirect = agent.redirect_uri();
        let browser = tokio::spawn(async move {
            // Until the listener serves again, the connection may be refused.
            loop {
                if reqwest::get(format!("{redirect}?code=again")).await.is_ok() {
                    break;
                }
                tokio::task::yield_now().await;
            }
        });
        let returned = agent.authorize("https://a/".to_owned()).await.unwrap();
        assert!(returned.ends_with("/callback?code=again"), "{returned}");
        browser.await.unwrap();
    }
}
