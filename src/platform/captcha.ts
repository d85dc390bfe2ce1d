import { randomInt } from 'node:crypto';
import { PNG } from 'pngjs';

// 5×7 bitmap digits; each lit cell becomes a block, jittered per glyph so the image is not trivially read.
const GLYPHS: Record<string, string[]> = {
  '0': ['01110', '10001', '10011', '10101', '11001', '10001', '01110'],
  '1': ['00100', '01100', '00100', '00100', '00100', '00100', '01110'],
  '2': ['01110', '10001', '00001', '00010', '00100', '01000', '11111'],
  '3': ['11111', '00010', '00100', '00010', '00001', '10001', '01110'],
  '4': ['00010', '00110', '01010', '10010', '11111', '00010', '00010'],
  '5': ['11111', '10000', '11110', '00001', '00001', '10001', '01110'],
  '6': ['00110', '01000', '10000', '11110', '10001', '10001', '01110'],
  '7': ['11111', '00001', '00010', '00100', '01000', '01000', '01000'],
  '8': ['01110', '10001', '10001', '01110', '10001', '10001', '01110'],
  '9': ['01110', '10001', '10001', '01111', '00001', '00010', '01100'],
};

export const CAPTCHA_WIDTH = 120;
export const CAPTCHA_HEIGHT = 40;
const CELL = 4;

export function randomDigits(length = 4): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String(randomInt(10));
  return s;
}

function put(png: PNG, x: number, y: number, [r, g, b]: number[]): void {
  if (x < 0 || y < 0 || x >= png.width || y >= png.height) return;
  const i = (png.width * y + x) << 2;
  png.data[i] = r;
  png.data[i + 1] = g;
  png.data[i + 2] = b;
  png.data[i + 3] = 255;
}

const darkColor = () => [randomInt(10, 120), randomInt(10, 120), randomInt(10, 120)];
const lightColor = () => [randomInt(160, 240), randomInt(160, 240), randomInt(160, 240)];

function line(png: PNG, color: number[]): void {
  let x0 = randomInt(png.width),
    y0 = randomInt(png.height);
  const x1 = randomInt(png.width),
    y1 = randomInt(png.height);
  const dx = Math.abs(x1 - x0),
    dy = -Math.abs(y1 - y0);
  const sx = x0 < x1 ? 1 : -1,
    sy = y0 < y1 ? 1 : -1;
  let err = dx + dy;
  for (;;) {
    put(png, x0, y0, color);
    if (x0 === x1 && y0 === y1) break;
    const e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

/** Draws the code as a PNG: light background, noise, jittered and sheared digits, crossing lines. */
export function drawCaptcha(code: string): Buffer {
  const png = new PNG({ width: CAPTCHA_WIDTH, height: CAPTCHA_HEIGHT });
  const bg = [randomInt(235, 256), randomInt(235, 256), randomInt(235, 256)];
  for (let y = 0; y < png.height; y++) for (let x = 0; x < png.width; x++) put(png, x, y, bg);
  for (let i = 0; i < 250; i++) put(png, randomInt(png.width), randomInt(png.height), lightColor());
  for (let i = 0; i < 3; i++) line(png, lightColor());
  const slot = Math.floor(CAPTCHA_WIDTH / code.length);
  [...code].forEach((ch, index) => {
    const glyph = GLYPHS[ch];
    if (!glyph) return;
    const color = darkColor();
    const left = index * slot + randomInt(4, slot - 5 * CELL + 1);
    const top = randomInt(2, CAPTCHA_HEIGHT - 7 * CELL - 1);
    const shear = (randomInt(0, 5) - 2) / 7;
    glyph.forEach((row, gy) => {
      [...row].forEach((cell, gx) => {
        if (cell !== '1') return;
        const ox = left + gx * CELL + Math.round((3 - gy) * shear * CELL);
        for (let dy = 0; dy < CELL; dy++)
          for (let dx = 0; dx < CELL; dx++) put(png, ox + dx, top + gy * CELL + dy, color);
      });
    });
  });
  for (let i = 0; i < 2; i++) line(png, darkColor());
  return PNG.sync.write(png);
}
