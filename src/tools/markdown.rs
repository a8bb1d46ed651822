//! `browser_read_markdown`: the page's main content as Markdown — what a
//! reader would keep (headings, paragraphs, lists, links, code, tables,
//! images with alt text), without navigation, scripts or hidden parts.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::cut_with;
use super::def::{Kind, Response, ToolDef, ToolError};
use crate::page::Tab;

/// Longest Markdown returned by one call (the rest is cut with a marker).
const MAX_MARKDOWN: usize = 40_000;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct MarkdownArgs {
    pub target: Option<String>,
}

/// Converts an element (`this`, or the page's main content when `this` is
/// not an element) to Markdown. The main content is the largest
/// article/main, else the element holding the most paragraph text, else
/// the body.
///
/// Runs in the snapshot engine's world: text and images a person cannot
/// see are left out (`__tabwire.seen`), and the walk stops soon after the
/// answer's limit.
const TO_MARKDOWN: &str = r#"function(max) {
  const T = globalThis.__tabwire;
  let spent = 0;
  const SKIP = new Set(['SCRIPT','STYLE','NOSCRIPT','TEMPLATE','svg','CANVAS','IFRAME','BUTTON',
    'INPUT','SELECT','TEXTAREA','DIALOG','OBJECT','EMBED','VIDEO','AUDIO','MAP']);
  const BLOCK = new Set(['P','DIV','SECTION','ARTICLE','MAIN','FIGURE','FIGCAPTION','DL','DT','DD',
    'HEADER','FOOTER','ADDRESS','DETAILS','SUMMARY','FORM','FIELDSET','CENTER']);
  let root = this && this.nodeType === 1 ? this : null;
  if (!root) {
    let best = null, most = 0;
    for (const c of document.querySelectorAll('article, main, [role=main]')) {
      const n = (c.innerText || '').length;
      if (n > most) { best = c; most = n; }
    }
    if (!best) {
      const score = new Map();
      for (const p of document.querySelectorAll('p')) {
        const at = p.parentElement;
        score.set(at, (score.get(at) || 0) + (p.innerText || '').length);
      }
      for (const [el, n] of score) if (n > most) { best = el; most = n; }
      if (most < 500) best = null;
    }
    root = best || document.body || document.documentElement;
  }
  const siteChrome = root === document.body;
  const abs = u => { try { return new URL(u, document.baseURI).href; } catch (e) { return u; } };
  const kids = (el, c) => { let s = ''; for (const k of el.childNodes) s += walk(k, c); return s; };
  const inline = (el, c) => kids(el, c).replace(/\s+/g, ' ').trim();
  function walk(n, c) {
    if (n.nodeType === 3) {
      if (spent > max || (/\S/.test(n.data) && !T.seen(n))) return '';
      const data = T.shownText(n);
      spent += data.length;
      return c.pre ? data : data.replace(/\s+/g, ' ');
    }
    if (n.nodeType !== 1 || spent > max) return '';
    const t = n.tagName;
    if (SKIP.has(t) || n.hidden || n.getAttribute('aria-hidden') === 'true') return '';
    if (n.checkVisibility && !n.checkVisibility()) return '';
    if ((t === 'NAV' || t === 'ASIDE') && n !== root) return '';
    if ((t === 'HEADER' || t === 'FOOTER') && siteChrome && n.parentElement === root) return '';
    switch (t) {
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': {
        const text = inline(n, c);
        return text ? '\n\n' + '#'.repeat(+t[1]) + ' ' + text + '\n\n' : '';
      }
      case 'BR': return '\n';
      case 'HR': return '\n\n---\n\n';
      case 'A': {
        const text = inline(n, c), href = n.getAttribute('href');
        if (!text || !href || /^javascript:/i.test(href)) return text;
        return '[' + text + '](' + abs(href) + ')';
      }
      case 'IMG': {
        const alt = (n.getAttribute('alt') || '').trim();
        return alt && T.seen(n) ? '![' + alt + '](' + abs(n.currentSrc || n.src) + ')' : '';
      }
      case 'STRONG': case 'B': { const x = inline(n, c); return x ? '**' + x + '**' : ''; }
      case 'EM': case 'I': { const x = inline(n, c); return x ? '*' + x + '*' : ''; }
      case 'CODE': { const x = kids(n, {...c, pre: true}); return c.pre ? x : x.trim() ? '`' + x.trim() + '`' : ''; }
      case 'PRE': { const x = kids(n, {...c, pre: true}); return x.trim() ? '\n\n```\n' + x.replace(/\n+$/, '') + '\n```\n\n' : ''; }
      case 'BLOCKQUOTE':
        return '\n\n' + kids(n, c).trim().split('\n').map(l => '> ' + l).join('\n') + '\n\n';
      case 'UL': case 'OL': {
        let out = '\n\n', i = Number(n.getAttribute('start') || 1);
        for (const li of n.children) {
          if (li.tagName !== 'LI') continue;
          const mark = t === 'OL' ? (i++) + '. ' : '- ';
          const body = kids(li, {...c, depth: c.depth + 1}).trim().replace(/\n{2,}/g, '\n');
          out += '  '.repeat(c.depth) + mark + body + '\n';
        }
        return out + '\n';
      }
      case 'TABLE': {
        const rows = [...n.querySelectorAll('tr')].filter(r => r.closest('table') === n);
        if (!rows.length) return '';
        const lines = rows.map(r => '| ' + [...r.children]
          .map(cell => inline(cell, c).replace(/\|/g, '\\|')).join(' | ') + ' |');
        const width = rows[0].children.length;
        lines.splice(1, 0, '|' + ' --- |'.repeat(width));
        return '\n\n' + lines.join('\n') + '\n\n';
      }
      default:
        return BLOCK.has(t) ? '\n\n' + kids(n, c) + '\n\n' : kids(n, c);
    }
  }
  return walk(root, {depth: 0, pre: false})
    .replace(/[ \t]+\n/g, '\n').replace(/\n[ \t]+(?![-\d ])/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}"#;

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::on_tab(
        "browser_read_markdown",
        "Read as Markdown",
        Kind::ReadOnly,
        "Main content (or `target`) as Markdown, no menus (articles, docs).",
        read_markdown,
    )]
}

/// browser_read_markdown.
async fn read_markdown(tab: Tab, a: MarkdownArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let (md, hidden, page) = tab
        .read_with_page_line(
            a.target.as_deref(),
            TO_MARKDOWN,
            serde_json::json!(MAX_MARKDOWN + 2000),
        )
        .await?;
    let md = md.as_str().unwrap_or("");
    let body = if md.is_empty() {
        "(no readable content)\n".to_string()
    } else {
        s.fence().wrap(&cut_with(
            md,
            MAX_MARKDOWN,
            "; pass a target to read one part",
        ))
    };
    Ok(Response::text(format!(
        "{page}\nMarkdown:\n{body}{}",
        crate::engine::hidden_note(hidden)
    )))
}
