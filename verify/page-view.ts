// The DataView of a page, remembered for the last page asked about: a page's checks, its
// heapallindexed probe, its TOAST chunk map and their helpers each want one, and making a view
// (reading a subarray's .buffer) cost more than some of those checks.
import { pageView } from "../formats/page/page.js";

let lastPage: Uint8Array | null = null;
let lastView: DataView = new DataView(new ArrayBuffer(0));

export function viewOf(page: Uint8Array): DataView {
  if (page !== lastPage) {
    lastPage = page;
    lastView = pageView(page);
  }
  return lastView;
}
