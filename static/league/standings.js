// After a sort, the page reloads with the table scrolled to its start; on a phone the sorted
// column may then be off-screen. Bring it into view, clear of the sticky first two columns.
document.addEventListener("DOMContentLoaded", () => {
  for (const wrap of document.querySelectorAll(".standings-wrap")) {
    const sorted = wrap.querySelector("th[aria-sort]");
    const sticky = wrap.querySelector("th.name");
    if (!sorted || !sticky || sorted.classList.contains("pos") || sorted === sticky) continue;
    // Sorted by a column a phone hides at first: show every column.
    const every = wrap.closest(".standings-columns")?.querySelector("input.all-columns");
    if (every && sorted.classList.contains("more")) every.checked = true;
    const clear = sticky.offsetLeft + sticky.offsetWidth;
    const right = sorted.offsetLeft + sorted.offsetWidth;
    if (right > wrap.scrollLeft + wrap.clientWidth || sorted.offsetLeft < wrap.scrollLeft + clear) {
      wrap.scrollLeft = Math.max(0, sorted.offsetLeft - clear);
    }
  }
});
