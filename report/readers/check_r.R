# Reads advi's CSVs (make_csvs.sh) with rstan's read_stan_csv, posterior and cmdstanr's
# read_cmdstan_csv / as_cmdstan_fit, where installed, and checks what they read against the
# files and `advi summary`'s statistics against posterior's.
# Usage: Rscript check_r.R CSV_DIR [R_LIBRARY_DIR]
# Debian 12: r-cran-rstan and r-cran-posterior; cmdstanr is not in Debian (R CMD INSTALL its
# source into R_LIBRARY_DIR).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) > 1) .libPaths(c(args[2], .libPaths()))
setwd(args[1])
failed <- 0
report <- function(ok, text) {
  cat(if (ok) "ok   " else "FAIL ", text, "\n", sep = "")
  if (!ok) failed <<- failed + 1
}
body <- function(f) read.csv(textConnection(grep("^#", readLines(f), invert = TRUE, value = TRUE)))

if (requireNamespace("rstan", quietly = TRUE)) {
  suppressMessages(library(rstan))
  for (f in c("fit_meanfield.csv", "fit_fullrank.csv")) {
    fit <- read_stan_csv(f)
    file_beta <- mean(body(f)$beta.1[-1])
    m <- as.matrix(fit)
    report(abs(mean(m[, "beta[1]"]) - file_beta) < 1e-9,
           sprintf("rstan read_stan_csv(%s): as.matrix %s, beta[1] mean %.6f", f,
                   paste(dim(m), collapse = "x"), mean(m[, "beta[1]"])))
    # print() fails on any variational CSV, CmdStan's too: rstan's summary of a variational
    # fit needs diagnostics only its own vb() fills. The workaround the README gives:
    printed <- tryCatch({capture.output(print(fit)); "printed"},
                        error = function(e) conditionMessage(e))
    fit@stan_args[[1]]$method <- "sampling"
    s <- summary(fit)$summary
    report(abs(s["beta[1]", "mean"] - file_beta) < 1e-9,
           sprintf("rstan print(fit) as read: %s; after the workaround: beta[1] mean %.6f, n_eff %.0f",
                   printed, s["beta[1]", "mean"], s["beta[1]", "n_eff"]))
  }
}
if (requireNamespace("posterior", quietly = TRUE)) {
  suppressMessages(library(posterior))
  b <- body("fit_meanfield.csv")[-1, ]
  ours <- read.csv("summary_meanfield.csv", comment.char = "#", check.names = FALSE)
  for (v in c("beta.1", "beta.2", "sigma", "y_rep")) {
    x <- b[[v]]
    name <- sub("\\.(\\d+)$", "[\\1]", v)
    row <- ours[ours$name == name, ]
    theirs <- c(ess_bulk(x), ess_tail(x), rhat(x), mcse_mean(x), mad(x))
    mine <- c(row$ESS_bulk, row$ESS_tail, row$R_hat, row$MCSE, row$MAD)
    report(all(abs(theirs - mine) <= 1e-6 * abs(theirs)),
           sprintf("posterior %s vs advi summary, %s: ESS_bulk %.4f/%.4f ESS_tail %.4f/%.4f R_hat %.6f/%.6f",
                   packageVersion("posterior"), name, theirs[1], mine[1], theirs[2], mine[2],
                   theirs[3], mine[3]))
  }
}
if (requireNamespace("cmdstanr", quietly = TRUE)) {
  suppressMessages(library(cmdstanr))
  for (f in c("fit_meanfield.csv", "fit_fullrank.csv", "optimize.csv", "laplace.csv",
              "pathfinder.csv")) {
    r <- tryCatch({
      fit <- as_cmdstan_fit(f)
      s <- fit$summary("beta")
      est <- if ("mean" %in% names(s)) s$mean[1] else s$estimate[1]
      b <- body(f)$beta.1
      want <- if (f %in% c("fit_meanfield.csv", "fit_fullrank.csv")) mean(b[-1]) else mean(b)
      list(ok = abs(est - want) < 1e-9, text = sprintf("cmdstanr as_cmdstan_fit(%s): %s, beta[1] %.6f (file %.6f)",
                                                       f, class(fit)[1], est, want))
    }, error = function(e) list(ok = FALSE, text = paste("cmdstanr", f, "error:", conditionMessage(e))))
    report(r$ok, r$text)
  }
}
quit(status = if (failed > 0) 1 else 0)
