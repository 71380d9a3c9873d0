// The "updated at" line of a convention page, filled in from api/status.json. A convention
// page is published again unchanged while its convention is (site_builder/render_cache.py),
// so the time cannot be written into it; the front page and the report carry it as text.
// From file:// there is nothing to fetch: the line keeps its pointer to the front page.
(function () {
  var line = document.getElementById("updated");
  var script = document.currentScript;
  if (!line || !script || !window.fetch || location.protocol === "file:") {
    return;
  }
  function utc(time) {
    return time ? time.slice(0, 10) + " " + time.slice(11, 16) + " UTC" : "";
  }
  fetch(new URL("api/status.json", script.src).href)
    .then(function (answer) { return answer.ok ? answer.json() : null; })
    .then(function (status) {
      if (!status || !status.builtAt) {
        return;
      }
      var text = "Updated at " + utc(status.lastSync || status.builtAt);
      if (status.source && status.source.api) {
        text += " from " + status.source.api;
      } else if (status.source && status.source.dump) {
        text += " from the export " + status.source.dump;
      }
      if (status.lastSync) {
        text += "; content last changed " + utc(status.builtAt);
      }
      line.firstChild.textContent = text + ". ";
    })
    .catch(function () {});
})();
