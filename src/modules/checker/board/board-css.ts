/** The live board's style sheet (board-page.ts). */
export const BOARD_CSS = `
:root { color-scheme: light; font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; }
body { margin: 0; }
header { display: flex; align-items: center; gap: 1rem; padding: 0.75rem 1.25rem; background: #fff; border-bottom: 1px solid #d0d7de; }
header h1 { font-size: 1.25rem; margin: 0; flex: 1; }
#status { margin: 0; color: #57606a; }
main { padding: 1.25rem; max-width: 64rem; margin: 0 auto; }
form { display: grid; gap: 0.5rem; max-width: 22rem; background: #fff; padding: 1.25rem; border: 1px solid #d0d7de; border-radius: 6px; }
form h2 { margin: 0 0 0.5rem; font-size: 1.1rem; }
label { font-weight: 600; }
input { font: inherit; padding: 0.4rem; border: 1px solid #8c959f; border-radius: 4px; }
button { font: inherit; padding: 0.4rem 0.8rem; border: 1px solid #8c959f; border-radius: 4px; background: #fff; cursor: pointer; }
button[type=submit] { background: #0b5cad; color: #fff; border-color: #0b5cad; }
:focus-visible { outline: 3px solid #0b5cad; outline-offset: 2px; }
.captcha { display: flex; gap: 0.5rem; align-items: center; }
.captcha input { width: 5rem; }
.error { color: #a40e26; margin: 0; min-height: 1.2em; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
#spots { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.75rem; }
.spot { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 0.75rem 1rem; display: grid; grid-template-columns: 1fr auto; gap: 0.4rem 1rem; align-items: center; }
.spot h3 { margin: 0; font-size: 1rem; }
.figure { font-variant-numeric: tabular-nums; font-size: 1.1rem; font-weight: 600; }
.bar { grid-column: 1 / -1; height: 0.9rem; background: #e6e9ed; border-radius: 4px; overflow: hidden; }
.bar .fill { height: 100%; width: 0; background: #1f883d; transition: width 0.3s; }
.spot.near .bar .fill { background: #bf8700; }
.spot.over .bar .fill { background: #cf222e; }
.spot.near .figure::after { content: " near capacity"; font-size: 0.8rem; color: #7d4e00; }
.spot.over .figure::after { content: " at capacity"; font-size: 0.8rem; color: #a40e26; }
.spark { grid-column: 1 / -1; width: 100%; height: 2.5rem; }
.spark polyline { fill: none; stroke: #0b5cad; stroke-width: 1.5; }
.legend { color: #57606a; font-size: 0.85rem; }
`;
