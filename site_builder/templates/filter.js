// The front page's filter by name and status. Without scripts the form stays hidden and
// the table lists every convention.
(function () {
  var form = document.getElementById("filter");
  var rows = document.querySelectorAll("table.conventions tbody tr");
  if (!form || !rows.length) {
    return;
  }
  var name = document.getElementById("filter-name");
  var status = document.getElementById("filter-status");
  var count = document.getElementById("filter-count");
  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }
  function apply() {
    var words = fold(name.value).trim();
    var shown = 0;
    rows.forEach(function (row) {
      var ok = (!status.value || row.dataset.status === status.value) &&
        (!words || fold(row.cells[0].textContent).indexOf(words) >= 0);
      row.hidden = !ok;
      shown += ok ? 1 : 0;
    });
    count.textContent = shown + " / " + rows.length;
  }
  form.addEventListener("input", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.hidden = false;
  apply();
})();
