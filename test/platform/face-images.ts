import { PNG } from 'pngjs';

/** A real 96×80 baseline JPEG (a light oval on grey), made with cjpeg; small enough to keep inline. */
export const FACE_JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABsSFBcUERsXFhceHBsgKEIrKCUlKFE6PTBCYFVlZF9VXVtqeJmBanGQc1tdhbWGkJ6j' +
    'q62rZ4C8ybqmx5moq6T/2wBDARweHigjKE4rK06kbl1upKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSkpKSk' +
    'pKSkpKSkpKT/wAARCABQAGADASIAAhEBAxEB/8QAGQABAQEBAQEAAAAAAAAAAAAAAAQFAwEC/8QALRAAAgIABAMFCQEAAAAAAAAA' +
    'AAECAwQRITESE1FBQmGRoSIjMjNTYnKBscH/xAAXAQEBAQEAAAAAAAAAAAAAAAAAAwIB/8QAGBEBAQEBAQAAAAAAAAAAAAAAAAEC' +
    'QTH/2gAMAwEAAhEDEQA/AAANMgASbeS1YAFdWEW9uvgmd1VWlly4+Ri7jcxWaDS5Vf04+RxtwkWvd+y+jegm4XFRg9lFxk4yWTR4' +
    'bYAAAAAAuwtPLjxP4pehNhq1Zak9lqzQJ7vFMToACagAAOd9Sthls1szOaaeT0ZqkWMrUbFJbS/pvF4xudTgAqkAACrApZzfboVk' +
    'uB7/AOv9KiO/Vs+AAMtAAAE+NS5UX28RQT435S/I7n1zXiIAF0AAAdsJNQuWfe0LzKNDD2q2H3LcnudUxeOoAJqAAAEeNmnNRXd3' +
    'KbbFVDievRGc25Nt7vU3idY3ePAAVSAAAPYylB5xbTPABdVioz0nlF+jO6aazWqMoGLiKTdapxtxMILRqT6JkAOTBdvqyyVks5PP' +
    'w6HyAUYAAHH/2Q==',
  'base64',
);

/** A PNG of the given size with a seeded pattern, so different seeds give different bytes. */
export function facePng(width = 100, height = 120, seed = 1): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) {
    png.data[i * 4] = (i * 7 + seed * 31) & 0xff;
    png.data[i * 4 + 1] = (i * 13 + seed * 17) & 0xff;
    png.data[i * 4 + 2] = (seed * 53) & 0xff;
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}
