// wagate dashboard: the only script besides htmx. Live regions follow server-sent events, and
// copy buttons copy a shown-once secret. No inline script anywhere (the CSP forbids it).
"use strict"
;(function () {
  var streams = []

  // Elements with data-live="<url>" are replaced by the HTML each event of that stream carries.
  // The server renders (and escapes) every fragment; this only puts it in place.
  function connectLive(root) {
    streams = streams.filter(function (s) {
      if (s.el.isConnected) return true
      s.source.close()
      return false
    })
    if (!root.querySelectorAll) return
    var live = Array.prototype.slice.call(root.querySelectorAll("[data-live]"))
    if (root.matches && root.matches("[data-live]")) live.push(root)
    for (var i = 0; i < live.length; i++) {
      var el = live[i]
      if (el.dataset.liveBound) continue
      el.dataset.liveBound = "1"
      var source = new EventSource(el.dataset.live)
      source.onmessage = (function (target) {
        return function (event) {
          target.innerHTML = event.data
          if (window.htmx) window.htmx.process(target)
        }
      })(el)
      streams.push({ el: el, source: source })
    }
  }

  function copyFrom(button) {
    var target = document.getElementById(button.dataset.copyTarget)
    if (!target) return
    var text = target.textContent
    var done = function () {
      button.textContent = "Copied"
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {
        selectText(target)
      })
    } else {
      selectText(target)
    }
  }

  // Without clipboard access (plain HTTP on another host), select the text for Ctrl+C.
  function selectText(target) {
    var range = document.createRange()
    range.selectNodeContents(target)
    var selection = window.getSelection()
    selection.removeAllRanges()
    selection.addRange(range)
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy-target]")
    if (button) copyFrom(button)
  })
  document.addEventListener("htmx:load", function (event) {
    connectLive(event.detail.elt)
  })
  document.addEventListener("DOMContentLoaded", function () {
    connectLive(document)
  })
  window.addEventListener("pagehide", function () {
    streams.forEach(function (s) {
      s.source.close()
    })
    streams = []
  })
})()
