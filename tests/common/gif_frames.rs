//! Reading back a screen recording (an animated GIF) as a viewer shows
//! it, for the devtools group's tests.

/// The colour at (x, y) after each frame of a GIF, as a viewer shows it
/// (each frame drawn over the ones before).
pub fn colours_at(gif_bytes: &[u8], x: usize, y: usize) -> Vec<[u8; 3]> {
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut d = opts.read_info(gif_bytes).expect("a GIF");
    let width = d.width() as usize;
    let mut screen = vec![0u8; width * d.height() as usize * 4];
    let mut seen = Vec::new();
    while let Some(f) = d.read_next_frame().expect("a frame") {
        let (left, top, w) = (f.left as usize, f.top as usize, f.width as usize);
        for (i, px) in f.buffer.chunks(4).enumerate() {
            let at = ((top + i / w) * width + left + i % w) * 4;
            screen[at..at + 4].copy_from_slice(px);
        }
        let at = (y * width + x) * 4;
        seen.push([screen[at], screen[at + 1], screen[at + 2]]);
    }
    seen
}

/// The colours a sequence goes through, each once, named roughly.
pub fn colour_story(seen: &[[u8; 3]]) -> Vec<&'static str> {
    let mut story: Vec<&'static str> = Vec::new();
    for [r, g, b] in seen {
        let name = match (*r > 200, *g > 200, *b > 200) {
            (true, true, true) => "white",
            (false, false, true) => "blue",
            (true, false, false) => "red",
            _ => "other",
        };
        if story.last() != Some(&name) {
            story.push(name);
        }
    }
    story
}

/// The bytes of the GIF a `browser_stop_video` answer says it saved.
pub fn saved_gif(answer: &str) -> Vec<u8> {
    let path = answer
        .split("saved as ")
        .nth(1)
        .and_then(|r| r.split(".gif (").next())
        .map(|p| format!("{p}.gif"))
        .unwrap_or_else(|| panic!("a saved path: {answer}"));
    std::fs::read(&path).expect("the GIF file")
}
