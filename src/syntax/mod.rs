pub mod check;
pub mod functions_gen;
pub mod tables;
pub mod tables_gen;
