// The hotel module's front door: the only file other modules import (docs/architecture.md §4).
export { hotelModule } from './hotel.module.js';
