//! A tiny HTTP/1.1 site on 127.0.0.1 for the browser tests (test fixture
//! only; tabwire itself never listens on the network).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

pub struct Site {
    pub base: String,
}

impl Site {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind test site");
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let _ = handle(stream);
                });
            }
        });
        Self { base }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

fn handle(mut stream: std::net::TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    if target.starts_with("/never") {
        // A server that accepts and never answers (bounded, so the thread ends).
        std::thread::sleep(std::time::Duration::from_secs(60));
        return Ok(());
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let (status, body) = page(path, query);
    let resp = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(resp.as_bytes())
}

fn page(path: &str, query: &str) -> (&'static str, String) {
    match path {
        "/form" => ("200 OK", FORM.to_string()),
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
        "/hop" => {
            // Moves itself to ?to= after a moment, with no tool involved.
            let to = query.strip_prefix("to=").map(decode).unwrap_or_default();
            (
                "200 OK",
                format!(
                    "<!doctype html><title>Hop</title><p>Hopping</p><a href=\"{0}\">Direct link</a><script>setTimeout(() => location = {1:?}, 300)</script>",
                    escape(&to),
                    to
                ),
            )
        }
        "/keys" => ("200 OK", KEYS.to_string()),
        "/later" => ("200 OK", LATER.to_string()),
        "/hover" => ("200 OK", HOVER.to_string()),
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

const KEYS: &str = r#"<!doctype html><meta charset=utf-8><title>Keys</title>
<label>Keys <input id=k></label><p id=log></p>
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

const CONSOLE: &str = r#"<!doctype html><meta charset=utf-8><title>Console</title>
<script>console.log('hello log'); console.warn('careful'); console.error('broken thing');</script>
<button onclick="null.boom()">Break</button>"#;

const UPLOAD: &str = r#"<!doctype html><meta charset=utf-8><title>Upload</title>
<label>Attachment <input type=file id=f multiple></label><p id=files>none</p>
<script>document.querySelector('#f').addEventListener('change', e =>
  document.querySelector('#files').textContent = [...e.target.files].map(f => f.name + ':' + f.size).join(','));</script>"#;
