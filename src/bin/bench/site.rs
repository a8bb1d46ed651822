//! The benchmark's fixture site: a small HTTP/1.1 server on 127.0.0.1 with
//! an order form, a catalog of 200 links, a long article and a session
//! cookie. Every request is logged so the scenario can check what really
//! reached the server (the submitted form values, the link that was
//! followed, the cookie sent back).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub path: String,
    pub query: String,
    pub cookie: String,
}

pub struct Site {
    pub base: String,
    hits: Arc<Mutex<Vec<Hit>>>,
}

/// Marker at the very end of the article text, checked by the scenario.
pub const ARTICLE_END: &str = "END-OF-ARTICLE";
/// The session cookie `/form` sets and `/result` expects back.
pub const SESSION_COOKIE: &str = "bench_session=b7";

impl Site {
    pub fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let base = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
        let hits = Arc::new(Mutex::new(Vec::new()));
        let log = hits.clone();
        let article = Arc::new(article());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = log.clone();
                let article = article.clone();
                std::thread::spawn(move || {
                    let _ = handle(stream, &log, &article);
                });
            }
        });
        Ok(Self { base, hits })
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Forgets the request log (before each scenario run).
    pub fn clear(&self) {
        self.hits.lock().expect("hits lock").clear();
    }

    /// The latest request for `path`, if any.
    pub fn last(&self, path: &str) -> Option<Hit> {
        self.hits
            .lock()
            .expect("hits lock")
            .iter()
            .rev()
            .find(|h| h.path == path)
            .cloned()
    }
}

fn handle(
    mut stream: std::net::TcpStream,
    log: &Mutex<Vec<Hit>>,
    article: &str,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut cookie = String::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("cookie") {
                cookie = v.trim().to_string();
            }
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    log.lock().expect("hits lock").push(Hit {
        path: path.to_string(),
        query: query.to_string(),
        cookie,
    });
    let (status, extra, body) = page(path, query, article);
    let resp = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\n{extra}Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(resp.as_bytes())?;
    stream.write_all(body.as_bytes())
}

fn page(path: &str, query: &str, article: &str) -> (&'static str, String, String) {
    let ok = |body: String| ("200 OK", String::new(), body);
    match path {
        "/form" => (
            "200 OK",
            format!("Set-Cookie: {SESSION_COOKIE}; Path=/\r\n"),
            FORM.to_string(),
        ),
        "/result" => {
            let echo = format!(
                "name={};color={};subscribe={};size={}",
                param(query, "name").unwrap_or_default(),
                param(query, "color").unwrap_or_default(),
                param(query, "subscribe").unwrap_or_else(|| "off".into()),
                param(query, "size").unwrap_or_default(),
            );
            ok(format!(
                "<!doctype html><meta charset=utf-8><title>Result</title><h1>Thanks</h1><p id=echo>{}</p>",
                escape(&echo)
            ))
        }
        "/links" => {
            let mut body = String::from(
                "<!doctype html><meta charset=utf-8><title>Links</title><h1>Catalog</h1><ul>",
            );
            for i in 0..200 {
                body.push_str(&format!("<li><a href=\"/page/item-{i}\">Item {i}</a></li>"));
            }
            body.push_str("</ul><a href=\"https://example.org/elsewhere\">Elsewhere</a>");
            ok(body)
        }
        "/article" => ok(article.to_string()),
        p if p.starts_with("/page/") => {
            let name = escape(&decode(&p[6..]));
            ok(format!(
                "<!doctype html><meta charset=utf-8><title>{name}</title><h1>{name}</h1><a href=\"/links\">Back to the catalog</a>"
            ))
        }
        _ => (
            "404 Not Found",
            String::new(),
            "<!doctype html><title>Not found</title>".to_string(),
        ),
    }
}

/// A query parameter, URL-decoded.
pub fn param(query: &str, key: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| decode(v))
}

const FORM: &str = r#"<!doctype html><meta charset=utf-8><title>Order form</title>
<h1>Order</h1>
<form action="/result" method="get">
  <label>Name <input name="name" id="name"></label>
  <label>Color <select name="color" id="color"><option value="red">Red</option><option value="blue">Blue</option></select></label>
  <label><input type="checkbox" name="subscribe" id="subscribe"> Subscribe</label>
  <fieldset><legend>Size</legend>
    <label><input type="radio" name="size" value="S"> Small</label>
    <label><input type="radio" name="size" value="M"> Medium</label>
  </fieldset>
  <button type="submit">Send order</button>
</form>"#;

/// A long, deterministic article: 8 sections of 8 paragraphs (~30 KB).
fn article() -> String {
    const WORDS: &[&str] = &[
        "browser",
        "extension",
        "protocol",
        "latency",
        "snapshot",
        "relay",
        "frame",
        "socket",
        "render",
        "measure",
        "median",
        "session",
        "document",
        "network",
        "pipe",
        "client",
        "server",
        "message",
        "native",
        "host",
        "debugger",
        "command",
        "event",
        "result",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut body = String::from(
        "<!doctype html><meta charset=utf-8><title>A long article</title><article><h1>How a message crosses the relay</h1>",
    );
    for s in 0..8 {
        body.push_str(&format!("<h2>Section {}</h2>", s + 1));
        for _ in 0..8 {
            body.push_str("<p>");
            for w in 0..70 {
                let word = WORDS[(next() % WORDS.len() as u64) as usize];
                if w == 0 {
                    let mut c = word.chars();
                    let first = c.next().unwrap_or('x').to_ascii_uppercase();
                    body.push(first);
                    body.push_str(c.as_str());
                } else {
                    body.push(' ');
                    body.push_str(word);
                }
            }
            body.push_str(".</p>");
        }
    }
    body.push_str(&format!("<p>{ARTICLE_END}</p></article>"));
    body
}

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
