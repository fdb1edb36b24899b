use super::*;

fn one(src: &str) -> LuaTable {
    let mut t = calls(src, Path::new("t.lua"), "f").expect("parses");
    assert_eq!(t.len(), 1, "one call in {src:?}");
    t.remove(0)
}

#[test]
fn numbers_in_every_notation() {
    let t = one("f{ 3, 3.5, .5, 1e3, 2E-2, 0x1F, 0XfF, 0x1.8p1, 5., -7, - -2 }");
    let want = [
        3.0, 3.5, 0.5, 1000.0, 0.02, 31.0, 255.0, 3.0, 5.0, -7.0, 2.0,
    ];
    let got: Vec<f64> = t.array().iter().map(|v| v.as_number().unwrap()).collect();
    assert_eq!(got, want);
}

#[test]
fn malformed_numbers_are_lex_errors() {
    for src in ["f{ 3..2 }", "f{ 0x }", "f{ 1e }", "f{ 12abc }"] {
        let e = calls(src, Path::new("n.lua"), "f").unwrap_err();
        assert_eq!(e.offset, 3, "{src}");
        assert!(e.message.starts_with("line 1:4: malformed number"), "{e}");
    }
}

#[test]
fn escapes_follow_lua_5_1() {
    let t = one(
        r#"f{ "a\tb\n", 'it\'s', "\65\066\0671", "\x41\u{e9}", "q\q", "x\z
           y", "\\" }"#,
    );
    let got: Vec<&str> = t.array().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(got, ["a\tb\n", "it's", "ABC1", "Aé", "qq", "xy", "\\"]);
}

#[test]
fn escaped_newline_and_bad_escapes() {
    let t = one("f{ \"a\\\r\nb\" }");
    assert_eq!(t.get_index(1), Some(&LuaValue::String("a\nb".into())));
    let e = calls("f{ \"\\300\" }", Path::new("e.lua"), "f").unwrap_err();
    assert_eq!((e.offset, e.field.as_str()), (4, "f call at 1:1"));
    assert!(e.message.contains("above 255"), "{e}");
    let e = calls("x = '\\300'\nf{}", Path::new("e.lua"), "f").unwrap_err();
    assert_eq!((e.offset, e.field.as_str()), (5, "lua source"));
    let e = calls("x = 1\nf{ \"\\xZZ\" }", Path::new("e.lua"), "f").unwrap_err();
    assert!(e.message.starts_with("line 2:5:"), "{e}");
}

#[test]
fn long_strings_and_comments() {
    let src = "--[==[ f{ 'commented out' } ]] still comment ]==]\n\
               f{ --[[ in { the } table ]] a = [[\nline1\n]], -- line comment }\n\
               b = [=[x]]y]=], c = --[[x]] 1 }\n-- f{}";
    let t = one(src);
    assert_eq!(t.get("a"), Some(&LuaValue::String("line1\n".into())));
    assert_eq!(t.get("b"), Some(&LuaValue::String("x]]y".into())));
    assert_eq!(t.get("c"), Some(&LuaValue::Number(1.0)));
    assert_eq!(t.names(), ["a", "b", "c"]);
    assert_eq!((t.line, t.column, t.offset), (2, 2, 51));
}

#[test]
fn nested_tables_keys_and_separators() {
    let t = one(r#"f({ x = { 1, { y = "z" }; [3] = true }, ["k-ey"] = 2; [2.5] = "h", "pos", })"#);
    let x = t.get("x").unwrap().as_table().unwrap();
    assert_eq!(x.get_index(1), Some(&LuaValue::Number(1.0)));
    let inner = x.get_index(2).unwrap().as_table().unwrap();
    assert_eq!(inner.get("y").unwrap().as_str(), Some("z"));
    assert_eq!(x.get_index(3), Some(&LuaValue::Bool(true)));
    assert_eq!(x.array().len(), 3);
    assert_eq!(t.get("k-ey"), Some(&LuaValue::Number(2.0)));
    assert_eq!(
        t.entries[2],
        (
            LuaKey::Other(LuaValue::Number(2.5)),
            LuaValue::String("h".into())
        )
    );
    assert_eq!(t.get_index(1), Some(&LuaValue::String("pos".into())));
}

#[test]
fn only_top_level_calls_are_read() {
    let src = r#"
        import "mod_assets/scripts/x.lua"
        defineObject{ name = "o", f = 1 }
        local t = { f = 2 }
        t.f{ name = "field call" }
        function make(n) f{ name = n } end
        for i = 1, 3 do f{ name = "loop" .. i } end
        if x then f{ name = "cond" } end
        repeat f{ name = "r" } until true
        f{ name = "a" }
        f "string arg"
        f(variable)
        f({ name = "b" })
        obj:f{ name = "method" }
    "#;
    let found = calls(src, Path::new("s.lua"), "f").unwrap();
    let names: Vec<&str> = found
        .iter()
        .map(|t| t.get("name").unwrap().as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"]);
}

#[test]
fn top_level_constants_and_folding() {
    let src = r#"
        local root = "mod_assets/textures/"
        ext = ".tga"
        local n = 2 * 10 + 1
        local function helper() return 1 end
        local unknown = helper()
        f{ d = root .. "wall" .. ext, g = n, h = -n ^ 2, u = unknown, s = 1 .. "",
           o = nil or "dflt", b = not nil, x = y.z, fn = function(self, t) if t then return end end }
    "#;
    let t = one(src);
    assert_eq!(
        t.get("d").unwrap().as_str(),
        Some("mod_assets/textures/wall.tga")
    );
    assert_eq!(t.get("g").unwrap().as_number(), Some(21.0));
    assert_eq!(t.get("h").unwrap().as_number(), Some(-441.0));
    assert_eq!(t.get("u"), Some(&LuaValue::Expr("unknown".into())));
    assert_eq!(t.get("s").unwrap().as_str(), Some("1"));
    assert_eq!(t.get("o").unwrap().as_str(), Some("dflt"));
    assert_eq!(t.get("b"), Some(&LuaValue::Bool(true)));
    assert_eq!(t.get("x"), Some(&LuaValue::Expr("y.z".into())));
    assert_eq!(
        t.get("fn"),
        Some(&LuaValue::Expr(
            "function(self, t) if t then return end end".into()
        ))
    );
}

#[test]
fn constants_inside_blocks_do_not_leak() {
    let t = one("local p = 'a'\nfunction g() p = 'b' end\nfor p = 1, 2 do end\nf{ v = p }");
    assert_eq!(t.get("v").unwrap().as_str(), Some("a"));
}

#[test]
fn syntax_error_in_a_call_names_position() {
    let src = "defineObject{ broken = = }\nf{\n  name = \"x\"\n  other = 1 }\n";
    let e = calls(src, Path::new("bad.lua"), "f").unwrap_err();
    assert_eq!(e.file, Path::new("bad.lua"));
    assert_eq!(e.field, "f call at 2:1");
    assert_eq!(e.offset, 45);
    assert_eq!(
        e.message,
        "line 4:3: expected `,`, `;` or `}` in the table opened at 2:2, found `other`"
    );
}

#[test]
fn unfinished_things_are_errors() {
    for (src, msg) in [
        ("f{ a = 'x", "unfinished string"),
        ("f{ a = [[x", "unfinished long string"),
        ("--[[ never closed", "unfinished long comment"),
        ("f{ a = {", "expected a value, found end of file"),
        ("f{ a = function() ", "has no matching `end`"),
        ("f{ [==x", "invalid long string delimiter"),
    ] {
        let e = calls(src, Path::new("u.lua"), "f").unwrap_err();
        assert!(e.message.contains(msg), "{src:?}: {e}");
    }
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let src = format!("f{{ a = {}1{} }}", "{".repeat(5000), "}".repeat(5000));
    let e = calls(&src, Path::new("d.lua"), "f").unwrap_err();
    assert!(e.message.contains("nesting deeper than 200"), "{e}");
    let src = format!("f{{ a = {}1 }}", "- ".repeat(5000));
    assert!(calls(&src, Path::new("d.lua"), "f").is_err());
    // Outside a wanted call nesting is only counted.
    let src = format!("x = {}1{}\nf{{}}", "{".repeat(5000), "}".repeat(5000));
    assert_eq!(calls(&src, Path::new("d.lua"), "f").unwrap().len(), 1);
}

#[test]
fn byte_order_mark_and_shebang_are_skipped() {
    let t = one("\u{feff}f{ a = 1 }");
    assert_eq!((t.offset, t.line, t.column), (4, 1, 3));
    let t = one("\u{feff}#!/bin/lua f{ a = 2 }\nf{ a = 3 }");
    assert_eq!(t.get("a"), Some(&LuaValue::Number(3.0)));
}

#[test]
fn line_columns_count_characters() {
    let src = "é\nab€c";
    let p = Parser::new(src);
    for offset in [0, 2, 3, 5, 8, 9, 999] {
        assert_eq!(p.position(offset), line_column(src.as_bytes(), offset));
    }
    assert_eq!(line_column(src.as_bytes(), 0), (1, 1));
    assert_eq!(line_column(src.as_bytes(), 3), (2, 1));
    assert_eq!(line_column(src.as_bytes(), 8), (2, 4));
    assert_eq!(line_column(src.as_bytes(), 999), (2, 5));
}
