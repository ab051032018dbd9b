// QR codes as the receipts draw them, read back: zbarimg decodes an image file; the hosted
// page's SVG symbol is rebuilt as a module grid and written as an image zbarimg reads.
import { execFileSync } from 'node:child_process';

/** Every QR symbol zbarimg finds in an image, one decoded string each. */
export function decodeQr(imagePath: string): string[] {
  const out = execFileSync('zbarimg', ['-q', '--raw', '-Sdisable', '-Sqrcode.enable', imagePath], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return out.split('\n').filter((line) => line !== '');
}

/** Rebuilds the module matrix from the `h`-run path qrcode's SVG renderer emits. */
export function svgModules(svg: string): boolean[][] {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const path = /<path stroke="#000000" d="([^"]+)"/.exec(svg)?.[1] ?? '';
  const grid = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  let x = 0;
  let y = 0;
  for (const [, command, args] of path.matchAll(/([Mmh])([^Mmh]+)/g)) {
    const [a, b] = args.trim().split(/\s+/).map(Number);
    if (command === 'M') [x, y] = [a, b];
    else if (command === 'm') [x, y] = [x + a, y + b];
    else {
      for (let i = 0; i < a; i += 1) grid[Math.floor(y)][x + i] = true;
      x += a;
    }
  }
  return grid;
}

/** Binary PGM (which zbarimg reads) with `scale` pixels per module. */
export function toPgm(grid: boolean[][], scale: number): Buffer {
  const side = grid.length * scale;
  const pixels = Buffer.alloc(side * side);
  for (let py = 0; py < side; py += 1) {
    for (let px = 0; px < side; px += 1) pixels[py * side + px] = grid[Math.floor(py / scale)][Math.floor(px / scale)] ? 0 : 255;
  }
  return Buffer.concat([Buffer.from(`P5\n${side} ${side}\n255\n`), pixels]);
}
