pub mod vela_run;
