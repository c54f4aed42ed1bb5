// The inbox's enhancements; the page works fully without them.
// 1. "Select all on this page" toggles the checkboxes in place instead of reloading.
// 2. An EventSource on /cms/workflow/inbox/events: when new tasks arrive, the status line
//    (#inbox-live) says so, with a link that reloads the list. Texts come from the page.
(function () {
  "use strict";
  var form = document.getElementById("tasks-form");
  var toggle = document.getElementById("select-all");
  if (form && toggle) {
    toggle.addEventListener("click", function (event) {
      event.preventDefault();
      var boxes = form.querySelectorAll('input[name="task_ids"]');
      var all = Array.prototype.every.call(boxes, function (b) { return b.checked; });
      Array.prototype.forEach.call(boxes, function (b) { b.checked = !all; });
      toggle.textContent = all ? toggle.dataset.selectText : toggle.dataset.clearText;
    });
  }
  var live = document.getElementById("inbox-live");
  if (live && window.EventSource && live.dataset.events) {
    var source = new EventSource(live.dataset.events);
    source.addEventListener("tasks", function () {
      live.hidden = false;
      live.textContent = live.dataset.newText + " ";
      var link = document.createElement("a");
      link.href = window.location.pathname + window.location.search;
      link.textContent = live.dataset.reloadText;
      live.appendChild(link);
    });
    window.addEventListener("pagehide", function () { source.close(); });
  }
})();
