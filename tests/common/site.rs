//! A tiny HTTP/1.1 site on 127.0.0.1 for the browser tests (test fixture
//! only; tabwire itself never listens on the network).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// The user name and password `/auth/*` accepts (HTTP Basic, realm "Staff area").
pub const AUTH_USER: &str = "alice";
pub const AUTH_PASSWORD: &str = "s3cret";

pub struct Site {
    pub base: String,
    /// Every request's `Host` and path, and its `Authorization` header
    /// when it had one: "host path [authorization]".
    pub seen: Arc<Mutex<Vec<String>>>,
}

impl Site {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind test site");
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = log.clone();
                std::thread::spawn(move || {
                    let _ = handle(stream, &log);
                });
            }
        });
        Self { base, seen }
    }

    /// The requests seen so far (see [`Self::seen`]).
    pub fn requests(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

fn handle(mut stream: std::net::TcpStream, seen: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let (mut host, mut authorization, mut body_len) = (String::new(), None, 0usize);
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            match k.trim().to_ascii_lowercase().as_str() {
                "host" => host = v.trim().to_string(),
                "authorization" => authorization = Some(v.trim().to_string()),
                "content-length" => body_len = v.trim().parse().unwrap_or(0),
                _ => {}
            }
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    seen.lock().unwrap().push(format!(
        "{host} {target}{}",
        authorization
            .as_deref()
            .map(|a| format!(" {a}"))
            .unwrap_or_default()
    ));
    if target.starts_with("/auth/") {
        // HTTP Basic, alice:s3cret (base64 YWxpY2U6czNjcmV0).
        let (status, extra, body) = if authorization.as_deref() == Some("Basic YWxpY2U6czNjcmV0") {
            (
                "200 OK",
                "",
                "<!doctype html><title>Staff area</title><h1>Welcome, staff</h1>",
            )
        } else {
            (
                "401 Unauthorized",
                "WWW-Authenticate: Basic realm=\"Staff area\"\r\n",
                "<!doctype html><title>Unauthorized</title><p>Sign in required",
            )
        };
        let resp = format!(
            "HTTP/1.1 {status}\r\n{extra}Content-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        return stream.write_all(resp.as_bytes());
    }
    if target == "/export/post" {
        // A form POST answered with an attachment made from what was
        // posted: fetching the URL again (a GET, no body) cannot get it.
        let resp = if request_line.starts_with("POST") {
            let mut body = vec![0; body_len.min(4096)];
            std::io::Read::read_exact(&mut reader, &mut body)?;
            let posted = String::from_utf8_lossy(&body).replace('&', "\n");
            let csv = format!("posted\n{posted}\n");
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/csv\r\nContent-Disposition: attachment; filename=\"posted export.csv\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{csv}",
                csv.len()
            )
        } else {
            "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .to_string()
        };
        return stream.write_all(resp.as_bytes());
    }
    if target == "/empty-404" {
        return stream.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    }
    if let Some(module) = target.strip_prefix("/js/") {
        // The modules of /late-app: the page's own module imports the
        // app (a request a script makes), which, once the page has
        // loaded, shows a spinner, fetches its data a moment later and
        // only then renders (as Gradio does).
        let body = match module {
            "boot.js" => "import('/js/app.js');",
            "app.js" => {
                "const root = document.getElementById('app');\n\
                 const start = () => {\n\
                   let dots = 0;\n\
                   const spin = setInterval(() => { root.textContent = 'Loading' + '.'.repeat(1 + dots++ % 3); }, 10);\n\
                   setTimeout(async () => {\n\
                     const data = await (await fetch('/api/slow?ms=150')).json();\n\
                     clearInterval(spin);\n\
                     root.innerHTML = '<h2>App is ready</h2><button>Answer ' + data.answer + '</button>';\n\
                   }, 60);\n\
                 };\n\
                 if (document.readyState === 'complete') start(); else addEventListener('load', start);"
            }
            _ => "",
        };
        return stream.write_all(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/javascript\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    }
    if target.starts_with("/api/slow") {
        // An API that takes `ms` (default 600) to answer.
        let ms = target
            .split_once("ms=")
            .and_then(|(_, v)| v.split('&').next()?.parse().ok())
            .unwrap_or(600);
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let body = format!("{{\"answer\": 42, \"ms\": {ms}}}");
        return stream.write_all(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    }
    if target.starts_with("/api/events") {
        // An event stream that sends a tick a second and never ends
        // (bounded, so the thread ends).
        stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n")?;
        for i in 0..60 {
            stream.write_all(format!("data: tick {i}\n\n").as_bytes())?;
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        return Ok(());
    }
    if target.starts_with("/api/burst") {
        // An event stream that sends five parts 600 ms apart (each gap
        // shorter than the action's stream-idle limit, their sum longer),
        // then stays open, quiet (bounded, so the thread ends).
        stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n")?;
        for i in 1..=5 {
            std::thread::sleep(std::time::Duration::from_millis(600));
            let part = if i == 5 {
                "All parts are in".to_string()
            } else {
                format!("part {i} of 5")
            };
            stream.write_all(format!("data: {part}\n\n").as_bytes())?;
        }
        std::thread::sleep(std::time::Duration::from_secs(30));
        return Ok(());
    }
    if target.starts_with("/never") {
        // A server that accepts and never answers (bounded, so the thread ends).
        std::thread::sleep(std::time::Duration::from_secs(60));
        return Ok(());
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if let Some(r) = resource(path, query) {
        let mut head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
            r.content_type,
            r.body.len()
        );
        for (k, v) in &r.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes())?;
        return stream.write_all(&r.body);
    }
    let (status, body) = page(path, query);
    let resp = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(resp.as_bytes())
}

/// A non-HTML response (files, images, JSON, cookie setters).
struct Resource {
    content_type: &'static str,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

/// A 1×1 red PNG.
pub const DOT_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The CSV served by `/files/report.csv`.
pub const REPORT_CSV: &str = "id,name\n1,alpha\n2,beta\n";

fn resource(path: &str, query: &str) -> Option<Resource> {
    let plain = |content_type, body: Vec<u8>| Resource {
        content_type,
        headers: Vec::new(),
        body,
    };
    Some(match path {
        "/img/dot.png" => plain("image/png", DOT_PNG.to_vec()),
        "/files/report.csv" => Resource {
            content_type: "text/csv",
            // A hostile suggested name: tabwire must keep only "evil report.csv".
            headers: vec![(
                "Content-Disposition",
                "attachment; filename=\"../../evil report.csv\"".into(),
            )],
            body: REPORT_CSV.as_bytes().to_vec(),
        },
        "/files/big.bin" => {
            let n: usize = query
                .strip_prefix("bytes=")
                .and_then(|v| v.parse().ok())
                .unwrap_or(1024);
            plain(
                "application/octet-stream",
                (0..n).map(|i| (i % 251) as u8).collect(),
            )
        }
        "/api/data.json" => plain("application/json", br#"{"items":[1,2,3]}"#.to_vec()),
        "/set-cookie" => Resource {
            content_type: "text/html",
            headers: vec![("Set-Cookie", "visit=first; Path=/".into())],
            body: b"<!doctype html><title>Cookie set</title><p>cookie set".to_vec(),
        },
        _ => return None,
    })
}

fn page(path: &str, query: &str) -> (&'static str, String) {
    match path {
        "/article" => ("200 OK", article()),
        "/media" => ("200 OK", MEDIA.to_string()),
        "/drag" => ("200 OK", DRAG.to_string()),
        "/opener" => ("200 OK", OPENER.to_string()),
        "/webmcp" => ("200 OK", WEBMCP.to_string()),
        "/frames" => ("200 OK", FRAMES.to_string()),
        "/frame-inner" => ("200 OK", FRAME_INNER.to_string()),
        "/xframes" => ("200 OK", CROSS_SITE_FRAMES.to_string()),
        // 127.0.0.1 → localhost → 127.0.0.1: a frame of the top page's
        // site inside an out-of-process frame.
        "/xframes-nested" => (
            "200 OK",
            "<!doctype html><title>Nested frames</title><h1>Top</h1><script>document.write('<iframe title=\"Middle\" style=\"width:500px;height:300px;margin-left:20px\" src=\"http://localhost:' + location.port + '/xframe-mid\"></iframe>')</script>".to_string(),
        ),
        "/xframe-mid" => (
            "200 OK",
            "<!doctype html><title>Middle</title><p>Middle page</p><script>document.write('<iframe title=\"Innermost\" style=\"width:420px;height:200px;margin-top:25px\" src=\"http://127.0.0.1:' + location.port + '/frame-inner\"></iframe>')</script>".to_string(),
        ),
        "/form" => ("200 OK", FORM.to_string()),
        // Nothing in the page until its script draws it, a moment after
        // the load event, with no request (an app's shell).
        "/blank-app" => (
            "200 OK",
            "<!doctype html><meta charset=utf-8><title>Blank app</title><body><script>addEventListener('load', () => setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<h1>Dashboard ready</h1><button>Refresh</button>'), 400));</script>"
                .to_string(),
        ),
        // Nothing in the page, and nothing to draw it.
        "/blank" => (
            "200 OK",
            "<!doctype html><meta charset=utf-8><title>Blank</title><body>".to_string(),
        ),
        "/late-app" => (
            "200 OK",
            "<!doctype html><meta charset=utf-8><title>Late app</title><div id=app>Loading...</div><script type=module src=/js/boot.js></script>"
                .to_string(),
        ),
        "/feed" => ("200 OK", FEED.to_string()),
        // Any fixture page of tests/pages by name (`/pages/canvas.html`).
        p if p.starts_with("/pages/") && !p.contains("..") => {
            let file = format!("{}/tests{p}", env!("CARGO_MANIFEST_DIR"));
            match std::fs::read_to_string(&file) {
                Ok(body) => ("200 OK", body),
                Err(_) => ("404 Not Found", format!("no fixture page {p}")),
            }
        }
        "/hidden" => ("200 OK", include_str!("../pages/hidden.html").to_string()),
        "/actions" => ("200 OK", include_str!("../pages/actions.html").to_string()),
        "/compute" => ("200 OK", include_str!("../pages/compute.html").to_string()),
        "/result" => {
            let get = |k: &str| {
                query
                    .split('&')
                    .filter_map(|kv| kv.split_once('='))
                    .find(|(key, _)| *key == k)
                    .map(|(_, v)| decode(v))
            };
            let echo = format!(
                "name={};color={};subscribe={};level={};size={}",
                get("name").unwrap_or_default(),
                get("color").unwrap_or_default(),
                get("subscribe").unwrap_or_else(|| "off".into()),
                get("level").unwrap_or_default(),
                get("size").unwrap_or_default(),
            );
            (
                "200 OK",
                format!(
                    "<!doctype html><meta charset=utf-8><title>Result</title><h1>Thanks</h1><p id=echo>{}</p>",
                    escape(&echo)
                ),
            )
        }
        "/dialog" => ("200 OK", DIALOG.to_string()),
        "/upload" => ("200 OK", UPLOAD.to_string()),
        // Replaces itself while it loads, as login and consent pages do.
        "/jump" => (
            "200 OK",
            "<!doctype html><title>Jump</title><script>location.replace('/page/landed')</script><p>Jumping"
                .to_string(),
        ),
        // A script redirect to a page that refreshes itself onward by <meta>.
        "/chain" => (
            "200 OK",
            "<!doctype html><title>Chain</title><script>location.href = '/chain-meta'</script><p>Chain start"
                .to_string(),
        ),
        "/chain-meta" => (
            "200 OK",
            "<!doctype html><title>Chain meta</title><meta http-equiv=\"refresh\" content=\"0; url=/page/chained\"><p>Refreshing"
                .to_string(),
        ),
        // Content at once, and a subresource that never finishes (its load
        // event never fires).
        "/stuck" => (
            "200 OK",
            "<!doctype html><meta charset=utf-8><title>Stuck</title><h1>Stuck content</h1><p>Readable already</p><img src=\"/never/pixel.png\" alt=\"Never\">"
                .to_string(),
        ),
        // A script that makes a file in the page and downloads it (blob:).
        "/export" => (
            "200 OK",
            r#"<!doctype html><meta charset=utf-8><title>Export</title>
<button onclick="exportCsv()">Export CSV</button>
<button id=quick onclick="exportNow()">Export at once</button>
<script>function exportCsv() {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob(['made,by,script\n'], {type: 'text/csv'}));
  a.download = 'script export.csv';
  document.body.append(a); a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 2000);
}
// As most export buttons do: a link never added to the page, its blob:
// URL revoked right after the click.
function exportNow() {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob(['short,lived\n'], {type: 'text/csv'}));
  a.download = 'quick export.csv';
  a.click();
  URL.revokeObjectURL(a.href);
}</script>"#
                .to_string(),
        ),
        // Every way a page starts a download a browser accepts.
        "/downloads" => ("200 OK", DOWNLOADS.to_string()),
        "/downloads/frame" => (
            "200 OK",
            r#"<!doctype html><meta charset=utf-8><title>Frame</title>
<a id=framed href="/api/data.json" download="framed export.json">Framed export</a>"#
                .to_string(),
        ),
        // Links to the awkward navigations, for actions that navigate.
        "/awkward" => (
            "200 OK",
            "<!doctype html><meta charset=utf-8><title>Awkward</title><a href=\"/jump\">To jump</a> <a href=\"/chain\">To chain</a> <a href=\"/stuck\">To stuck</a>"
                .to_string(),
        ),
        "/hop" => {
            // Moves itself to ?to= after a moment (300 ms, or ?ms=N&to=…),
            // with no tool involved.
            let (ms, rest) = match query.strip_prefix("ms=").and_then(|q| q.split_once('&')) {
                Some((ms, rest)) => (ms.parse::<u64>().unwrap_or(300), rest),
                None => (300, query),
            };
            let to = rest.strip_prefix("to=").map(decode).unwrap_or_default();
            (
                "200 OK",
                format!(
                    "<!doctype html><title>Hop</title><p>Hopping</p><a href=\"{0}\">Direct link</a><script>setTimeout(() => location = {1:?}, {ms})</script>",
                    escape(&to),
                    to
                ),
            )
        }
        "/keys" => ("200 OK", KEYS.to_string()),
        "/leave" => ("200 OK", LEAVE.to_string()),
        "/oauth" => ("200 OK", OAUTH.to_string()),
        // Posts its answer to the opener and closes itself, after `?ms=`.
        "/oauth-popup" => {
            let ms: u64 = query.strip_prefix("ms=").and_then(|v| v.parse().ok()).unwrap_or(0);
            (
                "200 OK",
                format!("<!doctype html><title>Authorize</title><p>Authorizing<script>setTimeout(() => {{ opener.postMessage('alice', '*'); window.close(); }}, {ms})</script>"),
            )
        }
        // A page with a frame that asks for a password on another host.
        "/auth-frame" => (
            "200 OK",
            "<!doctype html><title>Framed sign-in</title><h1>Outer</h1><script>document.write('<iframe title=\"Inner\" src=\"http://localhost:' + location.port + '/auth/framed\"></iframe>')</script>".to_string(),
        ),
        "/missing" => (
            "404 Not Found",
            "<!doctype html><meta charset=utf-8><title>Not found</title><h1>No such page</h1>".to_string(),
        ),
        // Links that lead nowhere (a port that refuses, a name that does not resolve).
        "/dead-links" => {
            let to = query.strip_prefix("to=").map(decode).unwrap_or_default();
            (
                "200 OK",
                format!("<!doctype html><title>Dead links</title><a href=\"{}\">Dead link</a>", escape(&to)),
            )
        }
        "/later" => ("200 OK", LATER.to_string()),
        "/hover" => ("200 OK", HOVER.to_string()),
        "/hover-menu" => ("200 OK", HOVER_MENU.to_string()),
        "/console" => ("200 OK", CONSOLE.to_string()),
        "/links" => {
            let mut body = String::from(
                "<!doctype html><meta charset=utf-8><title>Links</title><h1>Catalog</h1><ul>",
            );
            for i in 0..200 {
                body.push_str(&format!("<li><a href=\"/page/item-{i}\">Item {i}</a></li>"));
            }
            body.push_str("</ul><a href=\"https://example.org/elsewhere\">Elsewhere</a><a href=\"/page/item-0\">Item 0 again</a>");
            ("200 OK", body)
        }
        // An outline well over the 40 KB a snapshot answer carries, with a
        // form far below the viewport.
        // An app that moves within its document: a link to a part of the
        // page, and a route change through the history API.
        "/app" => (
            "200 OK",
            "<!doctype html><meta charset=utf-8><title>App</title><h1>App home</h1>\
             <a href=\"#far\">Jump down</a>\
             <button onclick=\"history.pushState({}, '', '/app/settings'); \
             document.querySelector('h1').textContent = 'Settings'\">Open settings</button>\
             <div style=\"height: 3000px\"></div><h2 id=far>Far section</h2>"
                .to_string(),
        ),
        "/catalog" => {
            let mut body = String::from(
                "<!doctype html><meta charset=utf-8><title>Catalog</title><h1>Big catalog</h1><ul>",
            );
            // `?products=n`: how many (a page too long to walk whole).
            let products: usize = query
                .strip_prefix("products=")
                .and_then(|n| n.parse().ok())
                .unwrap_or(2000);
            for i in 0..products {
                body.push_str(&format!(
                    "<li><a href=\"/page/product-{i}\">Product {i}</a></li>"
                ));
            }
            body.push_str("</ul><div id=tail><button onclick=\"document.title='clicked the last'\">Last button</button></div>\
                <form id=finder onsubmit=\"document.title='searched ' + this.q.value; return false\">\
                <input name=q aria-label=\"Search products\"><select aria-label=Sort><option>Name</option><option>Price</option></select>\
                <button>Search</button></form>");
            ("200 OK", body)
        }
        p if p.starts_with("/page/") => {
            let name = escape(&decode(&p[6..]));
            (
                "200 OK",
                format!("<!doctype html><meta charset=utf-8><title>{name}</title><h1>{name}</h1><a href=\"/form\">Go to form</a>"),
            )
        }
        _ => (
            "404 Not Found",
            "<!doctype html><title>Not found</title>".to_string(),
        ),
    }
}

/// A page that replaces its content (a feed, a dashboard): 100 buttons,
/// each click renders all of them anew.
const FEED: &str = r#"<!doctype html><meta charset=utf-8><title>Feed</title>
<main><h1>Feed</h1><p id=round>round 0</p><ul id=list></ul></main>
<script>
let round = 0;
function render() {
  round++;
  const items = [];
  for (let i = 0; i < 100; i++) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.textContent = `Item ${i} of round ${round}`;
    b.onclick = render;
    li.append(b);
    items.push(li);
  }
  document.getElementById('list').replaceChildren(...items);
  document.getElementById('round').textContent = `round ${round}`;
}
render();
</script>"#;

const FORM: &str = r#"<!doctype html><meta charset=utf-8><title>Order form</title>
<h1>Order</h1>
<form action="/result" method="get">
  <label>Name <input name="name" id="name"></label>
  <label>Color <select name="color" id="color"><option value="red">Red</option><option value="blue">Blue</option></select></label>
  <label><input type="checkbox" name="subscribe" id="subscribe"> Subscribe</label>
  <label>Level <input type="range" name="level" id="level" min="0" max="10" value="5"></label>
  <fieldset><legend>Size</legend>
    <label><input type="radio" name="size" value="S"> Small</label>
    <label><input type="radio" name="size" value="M"> Medium</label>
  </fieldset>
  <button type="submit">Send order</button>
</form>"#;

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

const DIALOG: &str = r#"<!doctype html><meta charset=utf-8><title>Dialogs</title>
<button onclick="alert('Hello there')">Alert</button>
<button onclick="document.querySelector('#result').textContent = confirm('Proceed?') ? 'confirmed' : 'cancelled'">Confirm</button>
<button onclick="document.querySelector('#result').textContent = 'answer:' + prompt('Your name?', 'nobody')">Prompt</button>
<p id=result>none</p>"#;

/// Asks to confirm leaving once the user has interacted with it.
const LEAVE: &str = r#"<!doctype html><meta charset=utf-8><title>Unsaved</title>
<label>Draft <input id=draft></label>
<a href="/page/elsewhere">Elsewhere</a>
<script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = ''; });</script>"#;

/// Opens a sign-in popup that answers by postMessage and closes itself.
const OAUTH: &str = r#"<!doctype html><meta charset=utf-8><title>App</title>
<button onclick="window.open('/oauth-popup?ms=300', 'signin', 'width=400,height=300')">Sign in</button>
<button onclick="window.open('/oauth-popup?ms=0', 'signin', 'width=400,height=300')">Quick sign in</button>
<p id=status>signed out</p>
<script>addEventListener('message', e => { document.querySelector('#status').textContent = 'signed in as ' + e.data; });</script>"#;

const KEYS: &str = r#"<!doctype html><meta charset=utf-8><title>Keys</title>
<label>Keys <input id=k></label><p id=log></p>
<button id=mod onclick="this.textContent = 'clicked with ' + (event.ctrlKey ? 'Ctrl' : '') + (event.shiftKey ? 'Shift' : '')">Mod</button>
<script>document.querySelector('#k').addEventListener('keydown', e => {
  const mods = (e.ctrlKey ? 'Ctrl+' : '') + (e.shiftKey ? 'Shift+' : '');
  document.querySelector('#log').textContent += '[' + mods + e.key + ']';
});</script>"#;

const LATER: &str = r#"<!doctype html><meta charset=utf-8><title>Later</title>
<p id=spinner>Loading…</p>
<script>setTimeout(() => {
  document.querySelector('#spinner').remove();
  const p = document.createElement('p'); p.id = 'done'; p.textContent = 'Loaded later';
  document.body.append(p);
}, 400);</script>"#;

const HOVER: &str = r#"<!doctype html><meta charset=utf-8><title>Hover</title>
<button id=menu onmouseover="document.querySelector('#tip').textContent = 'Menu open'">Menu</button>
<p id=tip>closed</p>"#;

// Menus CSS alone opens: one under a hovered item, one beside it (`+`),
// and a link whose hover only recolours it.
const HOVER_MENU: &str = r#"<!doctype html><meta charset=utf-8><title>Hover menu</title>
<style>
  li { position: relative; }
  .menu { display: none; position: absolute; left: 120px; top: 0; margin: 0; }
  li:hover > .menu { display: block; }
  #help:hover + .tip { visibility: visible; }
  .tip { visibility: hidden; }
  a:hover { color: #c00; text-decoration: underline; cursor: pointer; }
</style>
<ul><li><button>Products</button><ul class=menu><li><a href=/page/laptops>Laptops</a></li>
<li><a href=/page/phones>Phones</a></li></ul></li></ul>
<div><button id=help>Help</button><p class=tip>Ask us anything</p></div>
<p><a href=/page/docs>Docs</a></p>
<p style="margin-top: 200px">Far below</p>"#;

const CONSOLE: &str = r#"<!doctype html><meta charset=utf-8><title>Console</title>
<script>console.log('hello log'); console.warn('careful'); console.error('broken thing');</script>
<button onclick="null.boom()">Break</button>"#;

const UPLOAD: &str = r#"<!doctype html><meta charset=utf-8><title>Upload</title>
<label>Attachment <input type=file id=f multiple></label><p id=files>none</p>
<button id=pick onclick="document.querySelector('#f').click()">Choose files</button>
<script>document.querySelector('#f').addEventListener('change', e =>
  document.querySelector('#files').textContent = [...e.target.files].map(f => f.name + ':' + f.size).join(','));</script>"#;

/// A long article inside site chrome (nav, header, aside, footer).
fn article() -> String {
    let mut body = String::from(
        r#"<!doctype html><meta charset=utf-8><title>On Tidepools</title>
<header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
<aside>Subscribe to our newsletter!</aside>
<article><h1>On Tidepools</h1>
<p>Tidepools are <strong>rocky</strong> pools by the <em>sea</em>. See <a href="/page/anemones">anemones</a>.</p>
<h2>What lives there</h2>
<ul><li>Anemones</li><li>Crabs<ul><li>Hermit crabs</li></ul></li></ul>
<ol><li>Look</li><li>Do not touch</li></ol>
<pre><code>tide = low
visit()</code></pre>
<table><tr><th>Tide</th><th>Height</th></tr><tr><td>Low</td><td>0.3 m</td></tr></table>
<img src="/img/dot.png" alt="A red dot" width=16 height=16>
<blockquote>The sea is patient.</blockquote>
<p style="display:none">Hidden text must not appear.</p>
<script>var notInMarkdown = 1;</script>
"#,
    );
    for i in 1..=60 {
        body.push_str(&format!(
            "<p>Paragraph {i}: the tide comes in and goes out, leaving pools full of small and patient creatures that wait for the sea to return.</p>\n"
        ));
    }
    body.push_str("</article><footer>© Footer text</footer>");
    body
}

const MEDIA: &str = r#"<!doctype html><meta charset=utf-8><title>Media</title>
<img id=dot src="/img/dot.png" alt="Dot" width=20 height=20>
<canvas id=canvas width=4 height=4></canvas>
<a id=report href="/files/report.csv">Report</a>
<a id=named href="/api/data.json" download="data export.json">Export</a>
<button id=make onclick="makeBlob()">Make blob</button>
<a id=bloblink>blob</a>
<script>
const c = document.querySelector('#canvas').getContext('2d'); c.fillStyle = 'blue'; c.fillRect(0, 0, 4, 4);
fetch('/api/data.json').then(r => r.json()).then(d => document.title = 'Media ' + d.items.length);
function makeBlob() {
  const a = document.querySelector('#bloblink');
  a.href = URL.createObjectURL(new Blob(['made in the page'], {type: 'text/plain'}));
  a.textContent = 'blob ready';
}
</script>"#;

const DOWNLOADS: &str = r#"<!doctype html><meta charset=utf-8><title>Downloads</title>
<form method=post action="/export/post"><input name=rows value=three aria-label=Rows>
<button id=posted>Export posted</button></form>
<a id=data href="data:text/csv;charset=utf-8,from%2Cdata%0A1%2C2%0A" download="from data.csv">Data export</a>
<a id=big href="/files/big.bin?bytes=3145728" download="big.bin">Big file</a>
<iframe src="/downloads/frame" title="Exports frame" style="width:300px;height:80px"></iframe>"#;

const DRAG: &str = r#"<!doctype html><meta charset=utf-8><title>Drag</title>
<div id=card draggable=true style="width:80px;height:40px;background:#fc0">Card</div>
<div id=zone style="margin-top:60px;width:200px;height:100px;background:#0cf">Drop zone</div>
<p id=log>nothing dropped</p>
<script>
card.addEventListener('dragstart', e => e.dataTransfer.setData('text/plain', 'card-1'));
zone.addEventListener('dragover', e => e.preventDefault());
zone.addEventListener('drop', e => { e.preventDefault(); log.textContent = 'dropped ' + e.dataTransfer.getData('text/plain'); });
</script>"#;

const WEBMCP: &str = r#"<!doctype html><meta charset=utf-8><title>Page tools</title>
<p id=total>0</p>
<script>
navigator.modelContext.registerTool({
  name: 'add_to_total',
  description: 'Adds n to the total shown on the page',
  inputSchema: {type: 'object', properties: {n: {type: 'number'}}, required: ['n']},
  async execute({n}) {
    const el = document.querySelector('#total');
    el.textContent = String(Number(el.textContent) + n);
    return {content: [{type: 'text', text: 'total is ' + el.textContent}]};
  },
});
</script>"#;

const FRAMES: &str = r#"<!doctype html><meta charset=utf-8><title>Frames</title>
<h1>Outer</h1>
<iframe id=inner src="/frame-inner" style="width:400px;height:200px;margin-top:40px"></iframe>"#;

/// The same inner page from another site (`localhost` vs `127.0.0.1`):
/// Chromium runs it out of process. Also an open shadow root.
const CROSS_SITE_FRAMES: &str = r#"<!doctype html><meta charset=utf-8><title>Cross-site frames</title>
<h1>Outer</h1>
<script>document.write('<iframe id=far title="Far frame" style="width:400px;height:200px;margin:30px 0 0 50px;border:7px solid #ccc;padding:5px" src="http://localhost:' + location.port + '/frame-inner"></iframe>')</script>
<shadow-host></shadow-host>
<p id=sout>shadow not clicked</p>
<script>
customElements.define('shadow-host', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<button>Shadow button</button>';
    root.querySelector('button').onclick = () => document.querySelector('#sout').textContent = 'shadow clicked';
  }
});
</script>"#;

const FRAME_INNER: &str = r#"<!doctype html><meta charset=utf-8><title>Inner</title>
<label>Inner name <input id=iname></label>
<button id=ibutton onclick="document.querySelector('#iout').textContent = 'inner clicked ' + document.querySelector('#iname').value">Inner button</button>
<p id=iout>not yet</p>"#;

const OPENER: &str = r#"<!doctype html><meta charset=utf-8><title>Opener</title>
<button onclick="window.open('/page/popup')">Open popup</button>
<a href="/page/new-tab" target=_blank>New tab link</a>"#;
