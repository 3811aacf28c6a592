extension HTMLReportRenderer {
    /// Inline stylesheet: system fonts, light theme, responsive down to phone width.
    package static let css = """
    :root{--ok:#1a7f37;--ok-bg:#dafbe1;--bad:#cf222e;--bad-bg:#ffebe9;--warn:#9a6700;--warn-bg:#fff8c5;--mute:#57606a;--line:#d0d7de;--bg:#f6f8fa;--accent:#0969da}
    *{box-sizing:border-box}
    body{margin:0;font:15px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"DejaVu Sans",Helvetica,Arial,sans-serif;color:#1f2328;background:#fff}
    main{max-width:1180px;margin:0 auto;padding:0 20px 40px}
    code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:.9em}
    .banner{padding:22px 20px 18px;color:#fff}
    .banner.green{background:linear-gradient(135deg,#1a7f37,#2da44e)}
    .banner.red{background:linear-gradient(135deg,#a40e26,#cf222e)}
    .banner.not-run,.banner.interrupted{background:linear-gradient(135deg,#7d4e00,#bf8700)}
    .banner .inner{max-width:1140px;margin:0 auto}
    .banner h1{margin:0 0 4px;font-size:1.6em;line-height:1.2}
    .banner .line{font-size:1.05em;opacity:.95}
    .banner ul{margin:8px 0 0;padding-left:20px}
    .banner .meta{margin-top:10px;font-size:.85em;opacity:.9;display:flex;flex-wrap:wrap;gap:4px 16px}
    nav.toc{display:flex;flex-wrap:wrap;gap:6px;margin:14px 0 4px}
    nav.toc a{color:var(--accent);text-decoration:none;border:1px solid var(--line);border-radius:999px;padding:2px 10px;font-size:.85em}
    h2{margin:28px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line);font-size:1.3em}
    h3{margin:18px 0 8px;font-size:1.1em}
    h4{margin:14px 0 6px;font-size:.95em;color:var(--mute)}
    .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(120px,1fr));gap:10px;margin:14px 0}
    .card{border:1px solid var(--line);border-radius:8px;padding:10px 12px;background:var(--bg)}
    .card .n{font-size:1.5em;font-weight:600}
    .card .k{font-size:.8em;color:var(--mute);text-transform:uppercase;letter-spacing:.04em}
    .card.bad .n{color:var(--bad)} .card.warn .n{color:var(--warn)} .card.ok .n{color:var(--ok)}
    details.suite{border:1px solid var(--line);border-radius:8px;margin:10px 0;background:#fff}
    details.suite>summary{cursor:pointer;padding:10px 12px;display:flex;flex-wrap:wrap;align-items:center;gap:6px 10px;background:var(--bg);border-radius:8px}
    details.suite[open]>summary{border-bottom:1px solid var(--line);border-radius:8px 8px 0 0}
    details.suite>.body{padding:4px 12px 12px}
    summary .name{font-weight:600}
    summary .counts{color:var(--mute);font-size:.9em;margin-left:auto}
    .pill{display:inline-block;border-radius:999px;padding:1px 9px;font-size:.78em;font-weight:600;white-space:nowrap;border:1px solid transparent}
    .pill.passed,.pill.green,.pill.measured,.pill.killed{background:var(--ok-bg);color:var(--ok);border-color:#aceebb}
    .pill.failed,.pill.red,.pill.survived{background:var(--bad-bg);color:var(--bad);border-color:#ffcecb}
    .pill.notrun,.pill.unschedulable,.pill.interrupted,.pill.incomplete,.pill.error{background:#fff1e5;color:#bc4c00;border-color:#ffd8b5}
    .pill.skipped{background:#eaeef2;color:var(--mute)}
    .pill.quarantined{background:#ddf4ff;color:#0550ae;border-color:#80ccff}
    tr.quarantined>td{background:#f6fbff} tr.quarantined .fail{background:#f1f8ff;border-left-color:#0969da} tr.quarantined .fail .loc{color:#0550ae}
    .pill.flaky,.pill.retry{background:var(--warn-bg);color:var(--warn);border-color:#eed888}
    .chip{display:inline-block;font:600 .72em ui-monospace,monospace;border-radius:4px;padding:0 5px;margin:1px 2px 1px 0;border:1px solid}
    .chip.c{color:#0550ae;border-color:#80ccff;background:#ddf4ff} .chip.k{color:#8250df;border-color:#d8b9ff;background:#fbefff}
    .reasons{margin:8px 0;padding:8px 12px;background:var(--bad-bg);border-radius:6px;color:#82071e}
    .reasons ul{margin:0;padding-left:18px}
    .table-wrap{overflow-x:auto;-webkit-overflow-scrolling:touch}
    table{border-collapse:collapse;width:100%;font-size:.9em}
    th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #eaeef2;vertical-align:top}
    th{font-size:.78em;text-transform:uppercase;letter-spacing:.04em;color:var(--mute);font-weight:600}
    td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
    td.test{word-break:break-word}
    table.tests{table-layout:fixed} table.tests th.st{width:150px} table.tests th.dur{width:90px} table.tests th.att{width:80px}
    .cls{color:var(--mute);font-size:.85em}
    .fail{margin:4px 0 0;padding:6px 8px;background:#fff5f5;border-left:3px solid var(--bad);font-size:.88em;white-space:pre-wrap;word-break:break-word}
    .fail .loc{color:var(--bad);font-weight:600}
    .note{color:var(--mute);font-size:.85em}
    .props{color:var(--mute);font-size:.85em;margin:2px 0 6px}
    figure{margin:12px 0;border:1px solid var(--line);border-radius:8px;padding:10px}
    figcaption{font-weight:600;margin-bottom:6px}
    svg{max-width:100%;height:auto;display:block}
    svg text{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
    .legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.82em;color:var(--mute);margin-top:6px}
    .legend i{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:5px;vertical-align:-1px}
    .checklist li{margin:6px 0}
    .checklist .q{font-weight:600}
    footer{margin-top:30px;color:var(--mute);font-size:.8em;border-top:1px solid var(--line);padding-top:10px}
    @media (min-width:1600px){.charts{display:grid;grid-template-columns:1fr 1fr;gap:12px}.charts figure{margin:6px 0}}
    @media (max-width:700px){body{font-size:14px}table.tests th.st{width:88px}table.tests th.dur{width:82px}td.test .mono{word-break:break-all}main{padding:0 10px 30px}.banner h1{font-size:1.3em}.hide-sm{display:none}th,td{padding:4px 5px}}
    """
}
