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
  // The words come from the page (data-* attributes, in the site's language); the date is
  // written as the page's language writes dates.
  function words(name, key, value) {
    return (line.dataset[name] || "").replace("{" + key + "}", value);
  }
  function utc(time) {
    if (!time) {
      return "";
    }
    try {
      return new Date(time).toLocaleString(document.documentElement.lang || undefined, {
        year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "UTC",
      }) + " UTC";
    } catch (e) {
      return time.slice(0, 10) + " " + time.slice(11, 16) + " UTC";
    }
  }
  fetch(new URL("api/status.json", script.src).href)
    .then(function (answer) { return answer.ok ? answer.json() : null; })
    .then(function (status) {
      if (!status || !status.builtAt) {
        return;
      }
      var text = words("updated", "time", utc(status.lastSync || status.builtAt));
      if (status.source && status.source.api) {
        text += " " + words("from", "source", status.source.api);
      } else if (status.source && status.source.dump) {
        text += " " + words("export", "file", status.source.dump);
      }
      if (status.lastSync) {
        text += "; " + words("changed", "time", utc(status.builtAt));
      }
      line.firstChild.textContent = text + ". ";
    })
    .catch(function () {});
})();
