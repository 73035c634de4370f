//! The `devportal` binary (see the library for the commands).

fn main() -> std::process::ExitCode {
    devportal_cli::main()
}
