#pragma once
// Progress on stderr for work that takes more than a second: a status line redrawn in
// place ("memplan run: invoking the naive layout, 2.4 s") and, for batches, one line per
// input done ("[3/12] model.tflite"). Only when stderr is a terminal and --quiet is off,
// so pipes and scripts see nothing; work done within a second shows nothing either.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace memplan::cli {

class Progress {
 public:
  // `command` prefixes the status line ("memplan plan"). `status_line` false: only the
  // lines of Done() (when another progress line, the exact solver's, owns the terminal).
  Progress(std::string command, bool quiet, bool status_line = true);
  ~Progress();  // Finish()
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // What is being done now; shown on the status line. Empty: nothing is shown (the line
  // is cleared) until the next stage.
  void Stage(std::string stage);
  // One item of a batch is done: a line of its own once the work has taken a second
  // (the items done before then are printed at that moment).
  void Done(std::string line);
  // A message that must be seen (an input of a batch failed): printed on stderr always,
  // terminal or not, without garbling the status line.
  void Message(const std::string& line);
  // Stops the status line and clears it: call before printing results on stdout.
  void Finish();

 private:
  void Run();            // the ticker thread
  void ClearLocked();    // erases the status line
  void FlushLocked();    // prints pending Done() lines
  bool enabled_;         // stderr is a terminal and not --quiet
  bool status_line_;     // draw the status line
  std::string command_;  // status line prefix
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::duration quiet_for_;  // nothing shown before this
  std::mutex mutex_;                               // guards what follows and stderr
  std::condition_variable wake_;                   // stops the ticker early
  bool stop_ = false;                              // the ticker should end
  bool past_second_ = false;                       // the work has taken a second
  bool drawn_ = false;                             // a status line is on the terminal
  std::string stage_;                              // current stage
  std::vector<std::string> pending_;               // Done() lines within the first second
  std::thread ticker_;                             // redraws the status line
};

}  // namespace memplan::cli
