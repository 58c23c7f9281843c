// bt_executive viewer: renders tree snapshots (py_trees_js format) live or from a recorded run.
//
// Live: snapshots arrive as server-sent events from /api/stream, and the front camera's newest frame
// is fetched from /api/live/<camera> at most twice a second. Replay: /api/run gives the run's
// snapshots, events and frames; the slider picks a snapshot, the event log is lined up with it
// (each snapshot records the index of the last event before it) and each camera shows the frame
// nearest to it in time (frames' run_t and snapshots' t are the same clock).
//
// py_trees_js's handlers refer to the globals canvas_graph and canvas_paper: keep those names.
var canvas_graph = py_trees.canvas.create_graph()
var canvas_paper = py_trees.canvas.create_paper({graph: canvas_graph})
var viewer = {mode: null, run: null, index: -1, rendered: 0, playing: null, last_tree: null}
var LIVE_FRAME_PERIOD_MS = 500  // 2 Hz

// Node names are elided to fit their box: the full name is the box's title (and the SVG node's <title>),
// so hovering shows it. Patched before the first node view exists.
var py_trees_update_box = joint.shapes.trees.NodeView.prototype.updateBox
joint.shapes.trees.NodeView.prototype.updateBox = function() {
  py_trees_update_box.apply(this, arguments)
  var name = this.model.get('name') || ''
  if (this.$name && this.$name[0] && this.$name[0].getAttribute('title') !== name) {
    this.$name[0].setAttribute('title', name)
    this.$box[0].setAttribute('title', name)
    var svg_title = this.el.querySelector('title')
    if (!svg_title) {
      svg_title = document.createElementNS('http://www.w3.org/2000/svg', 'title')
      this.el.insertBefore(svg_title, this.el.firstChild)
    }
    svg_title.textContent = name
  }
}

$(window).resize(function() { py_trees.canvas.on_window_resize(canvas_paper) })

// What py_trees_js's own (unexported) canvas update does: update the graph, lay out new nodes,
// keep their html boxes in step with pan/zoom, and fit the tree to the window.
function render_tree(tree) {
  canvas_paper.freeze()
  var added = py_trees.canvas.update_graph({graph: canvas_graph, tree: tree}) || []
  if (added.length != 0) {
    py_trees.canvas.layout_graph({graph: canvas_graph})
    added.forEach(function(cell) {
      var view = canvas_paper.findViewByModel(cell)
      if (view && view.updateBox) {
        view.listenTo(canvas_paper, 'translate', view.updateBox)
        view.listenTo(canvas_paper, 'scale', view.updateBox)
      }
    })
    canvas_paper.updateViews()
  }
  if (canvas_graph.get('scale_content_to_fit')) {
    py_trees.canvas.scale_content_to_fit(canvas_paper)
  }
  canvas_paper.unfreeze()
  viewer.rendered += 1
  viewer.last_tree = tree
  show_tree_facts(tree)
  document.body.setAttribute('data-rendered', String(viewer.rendered))
}

function text(id, value) { document.getElementById(id).textContent = value }

function show_tree_facts(tree) {
  var current = tree.current ? tree.behaviours[tree.current] : null
  text('current', current ? 'Current: ' + current.name : '')
  var failures = document.getElementById('failures')
  failures.innerHTML = ''
  Object.keys(tree.behaviours).forEach(function(key) {
    var b = tree.behaviours[key]
    var data = b.data || {}
    if (data.failure_kind) {
      var item = document.createElement('li')
      item.className = 'failure'
      item.textContent = b.name + ': ' + data.failure_kind + (data.reason ? ' (' + data.reason + ')' : '') +
        (data.args ? ' args ' + data.args : '')
      failures.appendChild(item)
    }
  })
  if (!failures.children.length) {
    var none = document.createElement('li')
    none.textContent = 'none'
    none.className = 'none'
    failures.appendChild(none)
  }
  var root = tree.behaviours[tree.root] || {}
  var final_reason = (root.data || {}).final_reason
  var final_detail = (root.data || {}).final_detail
  var final = document.getElementById('final')
  final.textContent = final_reason ? 'Final: ' + final_reason + (final_detail ? ' (' + final_detail + ')' : '') : ''
  final.className = final_reason ? (final_reason == 'done' ? 'done' : (final_reason == 'planner_refused' ? 'refused' : 'failed')) : ''
}

function event_text(e) {
  var d = e.data || {}
  var where = (e.plan !== null && e.plan !== undefined ? ' plan ' + e.plan : '') +
              (e.step !== null && e.step !== undefined ? ' step ' + e.step : '')
  var extra = ''
  if (e.kind == 'step_start' || e.kind == 'step_end') extra = ' ' + (d.label || d.skill || '')
  if (e.kind == 'step_end' && d.result) {
    extra += d.result.success ? ' ok' : ' failed ' + d.result.failure_kind + ': ' + d.result.reason
  }
  if (e.kind == 'retry') extra = ' ' + d.failure_kind + ' (' + d.attempt + '/' + d.of + ')'
  if (e.kind == 'recovery') extra = ' ' + d.recovery + ' after ' + d.failure_kind
  if (e.kind == 'final') extra = ' ' + d.final_reason + (d.detail ? ' (' + d.detail + ')' : '')
  if (e.kind == 'planner_refused') {
    extra = ' ' + d.refusal + ': ' + d.reason
    // what the user may say instead (an ambiguous task's meanings, or the objects a phrase could name)
    if (d.candidates && d.candidates.length) extra += ' (say one of: ' + d.candidates.join(' | ') + ')'
  }
  if (e.kind == 'goal_check') extra = ' ' + (d.goal || []).join(', ') + (d.held ? ' holds' : ' NOT MET')
  return e.t.toFixed(2) + 's ' + e.kind + where + extra
}

// frames ------------------------------------------------------------------------------------------

// One <figure> per camera in the side column: an image and a caption (camera, time, moment).
function frame_figure(camera) {
  var list = document.getElementById('frame-list')
  var figure = list.querySelector('figure[data-camera="' + camera + '"]')
  if (figure) return figure
  figure = document.createElement('figure')
  figure.setAttribute('data-camera', camera)
  var image = document.createElement('img')
  image.alt = camera + ' camera'
  figure.appendChild(image)
  figure.appendChild(document.createElement('figcaption'))
  list.appendChild(figure)
  document.getElementById('frames').className = ''
  return figure
}

function show_frame(camera, url, caption, file) {
  var figure = frame_figure(camera)
  var image = figure.querySelector('img')
  if (image.getAttribute('src') != url) image.setAttribute('src', url)
  figure.setAttribute('data-file', file || '')
  figure.querySelector('figcaption').textContent = caption
}

// Each camera's frame nearest in time to snapshot `record` (on the run's clock).
function show_frames_at(record) {
  var nearest = {}
  viewer.run.frames.forEach(function(f) {
    var best = nearest[f.camera]
    if (!best || Math.abs(f.run_t - record.t) < Math.abs(best.run_t - record.t)) nearest[f.camera] = f
  })
  Object.keys(nearest).forEach(function(camera) {
    var f = nearest[camera]
    var where = (f.plan !== null ? ' plan ' + f.plan : '') + (f.step !== null ? ' step ' + f.step : '')
    show_frame(camera, f.url, camera + ' · t=' + f.t.toFixed(2) + 's · ' + f.moments.join('+') + where, f.file)
  })
  document.body.setAttribute('data-frame-t', String(record.t))
}

function poll_live_frames(cameras) {
  var shown = 0
  setInterval(function() {
    cameras.forEach(function(camera) {
      var probe = new Image()
      var url = '/api/live/' + camera + '?n=' + (shown++)
      probe.onload = function() {
        show_frame(camera, url, camera + ' · live · ' + new Date().toLocaleTimeString(), '')
        document.body.setAttribute('data-live-frames', String(shown))
      }
      probe.src = url
    })
  }, LIVE_FRAME_PERIOD_MS)
}

// replay ------------------------------------------------------------------------------------------

function show_snapshot(index) {
  var snapshots = viewer.run.snapshots
  if (!snapshots.length) return
  index = Math.max(0, Math.min(index, snapshots.length - 1))
  viewer.index = index
  var record = snapshots[index]
  render_tree(record.tree)
  show_frames_at(record)
  if (index == snapshots.length - 1) show_outcome(viewer.run.outcome)
  document.getElementById('slider').value = index
  var events = document.getElementById('events')
  var logged = viewer.run.events
  var now_index = record.event_index  // the last event before the snapshot that is not a frame (frames are not listed)
  while (now_index >= 0 && logged[now_index] && logged[now_index].kind == 'frame') now_index -= 1
  Array.prototype.forEach.call(events.children, function(item, i) {
    var base = logged[i] && logged[i].kind == 'frame' ? 'frame-event ' : ''
    item.className = base + (i == now_index ? 'now' : (i > record.event_index ? 'later' : ''))
  })
  var now = events.children[now_index]
  if (now && now.scrollIntoView) now.scrollIntoView({block: 'nearest'})
  text('position', 'snapshot ' + (index + 1) + '/' + snapshots.length + '  t=' + record.t.toFixed(2) + 's' +
       (record.event_index >= 0 ? '  event ' + record.event_index : ''))
}

// A run whose tree never ended (its executive died: final reason `lost`) still has an outcome to show.
function show_outcome(outcome) {
  var final = document.getElementById('final')
  if (!outcome || final.textContent) return
  final.textContent = 'Final: ' + outcome.final_reason + (outcome.detail ? ' (' + outcome.detail + ')' : '')
  final.className = outcome.final_reason == 'done' ? 'done' : 'failed'
}

function toggle_play() {
  if (viewer.playing) {
    clearInterval(viewer.playing)
    viewer.playing = null
    return
  }
  if (viewer.index >= viewer.run.snapshots.length - 1) show_snapshot(0)
  viewer.playing = setInterval(function() {
    if (viewer.index >= viewer.run.snapshots.length - 1) { toggle_play(); return }
    show_snapshot(viewer.index + 1)
  }, 400)
}

function start_replay(run) {
  viewer.run = run
  text('mode', 'Replay: ' + run.summary.run)
  text('task', 'Task: ' + run.info.task)
  var events = document.getElementById('events')
  run.frames = run.frames || []
  run.events.forEach(function(e) {
    var item = document.createElement('li')
    if (e.kind == 'frame') item.className = 'frame-event'  // kept, so that event indices line up; not shown
    item.textContent = event_text(e)
    events.appendChild(item)
  })
  var slider = document.getElementById('slider')
  slider.max = Math.max(0, run.snapshots.length - 1)
  slider.addEventListener('input', function() { show_snapshot(parseInt(slider.value, 10)) })
  document.getElementById('play').addEventListener('click', toggle_play)
  if (run.snapshots.length) {
    show_snapshot(run.snapshots.length - 1)  // open on how the run ended
  } else {
    text('position', 'this run has no snapshots')
    show_outcome(run.outcome)
  }
  document.body.setAttribute('data-ready', 'replay')
}

// live --------------------------------------------------------------------------------------------

function start_live(mode) {
  text('mode', 'Live: ' + mode.source)
  document.getElementById('controls').className = 'panel hidden'
  if (mode.cameras && mode.cameras.length) poll_live_frames(mode.cameras)
  var source = new EventSource('/api/stream')
  source.addEventListener('snapshot', function(message) {
    var tree = JSON.parse(message.data)
    var events = document.getElementById('events')
    var item = document.createElement('li')
    var current = tree.current ? tree.behaviours[tree.current] : null
    item.textContent = new Date(tree.timestamp * 1000).toLocaleTimeString() + ' ' + (current ? current.name : 'tree changed')
    events.appendChild(item)
    while (events.children.length > 50) events.removeChild(events.firstChild)
    var root = tree.behaviours[tree.root] || {}
    if ((root.data || {}).task) text('task', 'Task: ' + root.data.task)
    render_tree(tree)
  })
  source.onerror = function() { text('position', 'disconnected; retrying') }
  document.body.setAttribute('data-ready', 'live')
}

$.getJSON('/api/mode', function(mode) {
  viewer.mode = mode.mode
  if (mode.mode == 'replay') {
    $.getJSON('/api/run', start_replay)
  } else {
    start_live(mode)
  }
})
